import { describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';

type Headers = Record<string, string>;

const postOffer = (t: TestApp, headers: Headers, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/offers', headers, payload: body });

const figures = async (t: TestApp, headers: Headers, id: string) => {
  const load = (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers })).json();
  return {
    offer_count: load.offer_count,
    max_offer_amount: load.max_offer_amount,
    min_offer_amount: load.min_offer_amount,
  };
};

describe("a load's offer figures", () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registryFile([]) } });

  it('count every offer written at once by different carriers, per load and per organization', async () => {
    const { user } = await createTenant(t);
    const other = await createTenant(t);
    const [first, second] = [await createLoad(t, user.headers, {}), await createLoad(t, user.headers, {})];
    const elsewhere = await createLoad(t, other.user.headers, {});
    const carriers = await Promise.all(Array.from({ length: 8 }, () => createCarrier(t, user.headers, {})));
    // Eight offers on one load at the same moment: each writer counts what the others committed.
    const answers = await Promise.all(
      carriers.map((c, i) =>
        postOffer(t, user.headers, { load_id: first, carrier_id: c.id, offer_amount: 1000 + i * 100 }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(carriers.map(() => 201));
    // A second offer from a carrier already counted, and one on the other load.
    const again = await postOffer(t, user.headers, {
      load_id: first,
      carrier_id: carriers[0]?.id,
      offer_amount: 950,
    });
    expect(again.statusCode, again.body).toBe(201);
    const onSecond = await postOffer(t, user.headers, {
      load_id: second,
      carrier_id: carriers[1]?.id,
      offer_amount: 2200,
    });
    expect(onSecond.statusCode, onSecond.body).toBe(201);

    expect(await figures(t, user.headers, first)).toEqual({
      offer_count: 8,
      max_offer_amount: 1700,
      min_offer_amount: 950,
    });
    expect(await figures(t, user.headers, second)).toEqual({
      offer_count: 1,
      max_offer_amount: 2200,
      min_offer_amount: 2200,
    });
    expect(await figures(t, other.user.headers, elsewhere)).toEqual({
      offer_count: 0,
      max_offer_amount: null,
      min_offer_amount: null,
    });
    // The list shows the same figures as the single load.
    const page = (await t.app.inject({ method: 'GET', url: '/api/v1/loads', headers: user.headers })).json();
    const listed = new Map(
      page.data.map((l: { id: string; offer_count: number; max_offer_amount: number | null }) => [
        l.id,
        [l.offer_count, l.max_offer_amount],
      ]),
    );
    expect(listed.get(first)).toEqual([8, 1700]);
    expect(listed.get(second)).toEqual([1, 2200]);
  });
});
