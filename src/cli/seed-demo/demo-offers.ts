import { resultOf } from '../../domain/written.js';
import { defined } from '../../lib/defined.js';
import { contactRefusals } from '../../modules/outreaches/contact-guard.js';
import { FIRST, inChunks, LAST } from './demo-data.js';
import type { DemoLoads } from './demo-loads.js';
import type { DemoRun } from './demo-run.js';

/** Up to `count` of a dozen carriers, from a random start, that the contact guard allows on the load. */
export async function allowedAmong(run: DemoRun, carrierIds: string[], loadId: string, count: number) {
  const { rnd, db, scope } = run;
  const start = rnd.int(0, carrierIds.length - 1);
  const candidates = Array.from({ length: 12 }, (_, k) =>
    defined(
      carrierIds[(start + k * 7) % carrierIds.length],
      'carrierIds[(start + k * 7) % carrierIds.length]',
    ),
  );
  const refused = await contactRefusals(db, scope, candidates, loadId);
  return candidates.filter((c) => !refused.has(c)).slice(0, count);
}

/** Offers in every state, one accepted per booked load; then the delivered loads are reported Delivered. */
export async function seedOffers(run: DemoRun, carrierIds: string[], loads: DemoLoads): Promise<number> {
  const { services, rnd, scope, progress } = run;
  const { statuses, loadItems, loadIds, idsOf } = loads;
  const loadsService = services.loads;
  // Offers: from carriers the contact guard allows on the load.
  const offers = services.offers;
  const allowedFor = (loadId: string, count: number) => allowedAmong(run, carrierIds, loadId, count);
  const postedRate = new Map(loadItems.map((l, i) => [defined(loadIds[i], 'loadIds[i]'), l.posted_rate]));
  const makeOffer = async (
    loadId: string,
    carrierId: string,
    status: 'pending' | 'accepted' | 'rejected',
    k: number,
  ) => {
    const driver = `${FIRST[(k + 3) % 10]} ${LAST[(k + 5) % 10]}`;
    const offer = resultOf(
      await offers.create(scope, {
        load_id: loadId,
        carrier_id: carrierId,
        offer_amount: Math.round(((postedRate.get(loadId) ?? 2000) * (0.92 + rnd.next() * 0.2)) / 25) * 25,
        notes: rnd.pick(['Truck empty nearby', 'Can load tomorrow morning', 'Team drivers available', null]),
        ...(status === 'accepted'
          ? {
              driver_name: driver,
              driver_phone: `+1773555${String(4000 + (k % 5000)).padStart(4, '0')}`,
              truck_number: `T-${100 + k}`,
              trailer_number: `TR-${500 + k}`,
            }
          : {}),
      }),
    );
    if (status !== 'pending') await offers.setStatus(scope, offer.id, status);
    return offer;
  };
  let offerCount = 0;
  const booked = [
    ...idsOf('Dispatched'),
    ...idsOf('In Transit'),
    ...idsOf('Delivered'),
    ...idsOf('Exception'),
  ];
  await inChunks(booked, 8, async (loadId, k) => {
    const [winner, ...others] = await allowedFor(loadId, 1 + (k % 3));
    if (!winner) return;
    await makeOffer(loadId, winner, 'accepted', k);
    for (const c of others) await makeOffer(loadId, c, 'rejected', k);
    offerCount += 1 + others.length;
  });
  const quoting = [...idsOf('Quoted'), ...idsOf('Open').slice(10, 30), ...idsOf('Cancelled').slice(0, 4)];
  await inChunks(quoting, 8, async (loadId, k) => {
    const carriersForLoad = await allowedFor(loadId, 1 + (k % 4));
    for (const [j, c] of carriersForLoad.entries()) {
      await makeOffer(loadId, c, j === 1 && k % 2 === 0 ? 'rejected' : 'pending', k);
    }
    offerCount += carriersForLoad.length;
  });
  // Now the delivered loads are booked, their TMS reports them Delivered.
  const deliveredItems = loadItems.filter((_, i) => statuses[i] === 'Delivered');
  const delivered = await loadsService.upsertBatch(
    scope,
    deliveredItems.map((l) => ({ ...l, tms_status: 'Delivered', is_posted: false })),
  );
  if (!delivered.success) throw new Error(`demo loads not applied: ${JSON.stringify(delivered.errors)}`);
  progress(`${offerCount} offers, one accepted per booked load`);
  return offerCount;
}
