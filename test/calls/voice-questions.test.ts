import type { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';
import {
  firstToolAnswer,
  sendVapi,
  toolCalls,
  toolNamesOf,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';

type Headers = Record<string, string>;

async function tool(t: TestApp, call: Vapi.Call, name: string, args: Record<string, unknown>) {
  const res = await sendVapi(t, toolCalls(call, [{ id: `tc-${Math.random()}`, name, args }]));
  expect(res.statusCode, res.body).toBe(200);
  return firstToolAnswer(res);
}

describe('the voice tool answer_question', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registryFile([]) }) });

  async function bookingCall(headers: Headers) {
    await createCarrier(t, headers, { phone: '+14155550191', name: 'Blue Line Freight' });
    const loadId = await createLoad(t, headers, {
      posted_rate: 2000,
      max_buy_rate: 2650,
      customer_rate: 3175,
      margin: 525,
      commodity: 'Paper rolls',
      weight: 42000,
      distance: 921.4,
      special_instructions: ['Drop and hook at the receiver'],
      stops: [
        {
          ...stopPayload('Pickup'),
          planned: { start: '2026-03-02T14:00:00Z', end: '2026-03-02T16:00:00Z' },
          notes: 'GATE CODE 4417, customer pays 3175',
        },
        stopPayload('Dropoff'),
      ],
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers,
      payload: { phone_number: '+14155550191', load_id: loadId, call_type: 'LOAD_BOOKING' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { vapiId, body } = standIn.lastCall();
    return { call: vapiCall(vapiId, res.json().id), sent: body };
  }

  it('answers from the load’s facts, as the e-mail reply does, and never says an internal number', async () => {
    const { user } = await createTenant(t);
    const { call, sent } = await bookingCall(user.headers);
    expect(toolNamesOf(sent.assistant)).toContain('answer_question');

    const answered = await tool(t, call, 'answer_question', { topics: 'weight, drop and hook, miles' });
    expect(answered).toMatchObject({
      name: 'answer_question',
      result:
        'It weighs 42,000 lb. On drop and hook, the load notes say: Drop and hook at the receiver. It is about 921 miles.',
      metadata: { topics: ['weight', 'drop_and_hook', 'miles'], answered: true },
    });
    const appointment = await tool(t, call, 'answer_question', {
      topics: ['appointment', 'commodity', 'rate'],
    });
    expect(appointment.result).toBe(
      // Said as a dispatcher says it: the state's name, the day, 12-hour times, the amount in words.
      'Appointments: pickup in Chicago, Illinois Monday, March 2nd 2 PM UTC to 4 PM UTC. It is Paper rolls. It is posted at two thousand dollars, all in.',
    );
    for (const a of [answered, appointment]) expect(a.result).not.toMatch(/2,?650|3,?175|\b525\b|GATE CODE/);

    const unknown = await tool(t, call, 'answer_question', { topics: 'margin' });
    expect(unknown.error).toMatch(/^Unknown topic 'margin': one or more of weight, commodity/);
    expect((await tool(t, call, 'answer_question', {})).error).toMatch(/^Give topics/);
  });
});
