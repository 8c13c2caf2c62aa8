import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createCarrier } from '../helpers/carrier-factories.js';
import { createTenant, setStrictMode } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import { vapiCall } from '../helpers/vapi-stand-in.js';

/**
 * A load-booking call placed through the Vapi stand-in to a carrier on file at `phone`, in an
 * organization without strict mode (so the carrier's rates are taken): the Vapi call its messages carry.
 */
export async function placeOfferCall(t: TestApp, standIn: { lastCall(): { vapiId: string } }, phone: string) {
  const { user } = await createTenant(t);
  await setStrictMode(t, user.headers, false);
  await createCarrier(t, user.headers, { phone, name: 'Voice Tools Freight' });
  const loadId = await createLoad(t, user.headers, { posted_rate: 2000, max_buy_rate: 2400 });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/calls',
    headers: user.headers,
    payload: { phone_number: phone, load_id: loadId, call_type: 'LOAD_BOOKING' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { headers: user.headers, loadId, call: vapiCall(standIn.lastCall().vapiId, res.json().id) };
}
