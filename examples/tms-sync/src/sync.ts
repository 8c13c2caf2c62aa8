/**
 * Syncs a TMS export into Envoy and reports what carriers offered:
 *
 *   1. uploads the carriers CSV as it is (`text/csv` to POST /api/v1/carriers/batch);
 *   2. turns each row of the loads CSV into a LoadInput and upserts them in batches of up to 1000
 *      (POST /api/v1/loads/batch, with an Idempotency-Key so a retried batch runs once);
 *   3. lists the loads in the statuses asked for (GET /api/v1/loads?status=...), page by page;
 *   4. reads the offers on each of them (GET /api/v1/loads/{load_id}/offers).
 *
 * ENVOY_API_KEY=envoy_sk_... [ENVOY_BASE_URL=http://localhost:3000] \
 *   npx tsx examples/tms-sync/src/sync.ts [--loads FILE] [--carriers FILE] [--status Created,Unassigned]
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseCsv } from './csv.js';
import {
  createEnvoyClient,
  describeFailure,
  type EnvoyClient,
  type Load,
  type LoadInput,
  type LoadStatus,
} from './envoy.js';

/** Every load status; `satisfies` makes the build fail if the API renames or drops one. */
const LOAD_STATUSES = [
  'Created',
  'Unassigned',
  'Quotes Received',
  'Dispatched',
  'En Route',
  'Delivered',
  'Cancelled',
  'Exception',
] as const satisfies readonly LoadStatus[];

const MAX_BATCH = 1000;

export async function syncCarriers(client: EnvoyClient, csv: string): Promise<void> {
  const { data, error, response } = await client.POST('/api/v1/carriers/batch', {
    body: csv,
    bodySerializer: (body) => body,
    headers: { 'Content-Type': 'text/csv' },
  });
  if (!data) throw new Error(`carriers upload failed: ${describeFailure(response, error)}`);
  console.log(
    `carriers: ${data.created} created, ${data.updated} updated, ${data.summary.skipped} skipped, ` +
      `${data.summary.failed} failed`,
  );
  for (const item of data.errors ?? []) {
    console.log(`  row ${item.index + 2}: ${item.code} ${item.param ?? ''} ${item.message}`);
  }
}

/** One CSV row (a load with one pickup and one drop-off) as the API's LoadInput. */
export function toLoadInput(row: Record<string, string>): LoadInput {
  const optional = (name: string) => row[name] || null;
  const number = (name: string) => (row[name] ? Number(row[name]) : null);
  return {
    load_number: row.load_number ?? '',
    tms_load_id: optional('tms_load_id'),
    // The server checks the value and reports a bad one for this item alone (a 207).
    equipment_type: (row.equipment_type ?? '') as LoadInput['equipment_type'],
    mode: optional('mode') as NonNullable<LoadInput['mode']> | null,
    tms_status: optional('tms_status'),
    posted_rate: number('posted_rate'),
    weight: number('weight'),
    commodity: optional('commodity'),
    stops: [
      {
        type: 'Pickup',
        stop_number: 1,
        location: { city: row.pickup_city ?? '', state: row.pickup_state ?? '' },
        expected_date: optional('pickup_at'),
      },
      {
        type: 'Dropoff',
        stop_number: 2,
        location: { city: row.dropoff_city ?? '', state: row.dropoff_state ?? '' },
        expected_date: optional('dropoff_at'),
      },
    ],
  };
}

export async function syncLoads(client: EnvoyClient, csv: string): Promise<void> {
  const loads = parseCsv(csv).map(toLoadInput);
  for (let start = 0; start < loads.length; start += MAX_BATCH) {
    const batch = loads.slice(start, start + MAX_BATCH);
    // The same batch sent again (a retry after a timeout) is answered from the stored response.
    const key = `tms-sync-${createHash('sha256').update(JSON.stringify(batch)).digest('hex').slice(0, 32)}`;
    const { data, error, response } = await client.POST('/api/v1/loads/batch', {
      params: { header: { 'idempotency-key': key } },
      body: { loads: batch },
    });
    if (!data) throw new Error(`loads batch failed: ${describeFailure(response, error)}`);
    const replayed = response.headers.get('Idempotent-Replayed') === 'true' ? ' (replayed)' : '';
    console.log(
      `loads ${start + 1}-${start + batch.length}: ${data.created} created, ${data.updated} updated${replayed}`,
    );
    for (const item of data.errors) {
      console.log(`  loads[${start + item.index}]: ${item.code} ${item.param ?? ''} ${item.message}`);
    }
  }
}

export async function* loadsInStatus(client: EnvoyClient, statuses: LoadStatus[]): AsyncGenerator<Load> {
  for (let page = 1; ; page++) {
    const { data, error, response } = await client.GET('/api/v1/loads', {
      params: { query: { status: statuses, page, page_size: 100, order_by: 'created_at', order_desc: true } },
    });
    if (!data) throw new Error(`listing loads failed: ${describeFailure(response, error)}`);
    yield* data.data;
    if (!data.pagination.has_next) return;
  }
}

export async function reportOffers(client: EnvoyClient, load: Load): Promise<void> {
  const { data, error, response } = await client.GET('/api/v1/loads/{load_id}/offers', {
    params: { path: { load_id: load.id }, query: { page_size: 100 } },
  });
  if (!data) throw new Error(`offers of ${load.id} failed: ${describeFailure(response, error)}`);
  const lane = `${load.stops[0]?.location.city ?? '?'} -> ${load.stops.at(-1)?.location.city ?? '?'}`;
  console.log(
    `${load.load_number} (${load.load_status ?? 'no status'}, ${lane}): ${data.data.length} offer(s)`,
  );
  for (const offer of data.data) {
    const who = offer.carrier?.name ?? offer.contact_name ?? 'unknown carrier';
    console.log(
      `  ${offer.status.padEnd(8)} $${offer.offer_amount} from ${who} via ${offer.channel ?? offer.source}`,
    );
  }
}

function parseStatuses(list: string): LoadStatus[] {
  const known: readonly string[] = LOAD_STATUSES;
  return list.split(',').map((s) => {
    const status = s.trim();
    if (!known.includes(status))
      throw new Error(`unknown status '${status}': one of ${LOAD_STATUSES.join(', ')}`);
    return status as LoadStatus;
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      loads: { type: 'string' },
      carriers: { type: 'string' },
      status: { type: 'string', default: 'Created,Unassigned,Quotes Received' },
    },
  });
  const apiKey = process.env.ENVOY_API_KEY;
  if (!apiKey)
    throw new Error('ENVOY_API_KEY is not set (create one with `npm run admin -- create-api-key`)');
  const client = createEnvoyClient(process.env.ENVOY_BASE_URL ?? 'http://localhost:3000', apiKey);

  if (values.carriers) await syncCarriers(client, readFileSync(values.carriers, 'utf8'));
  if (values.loads) await syncLoads(client, readFileSync(values.loads, 'utf8'));
  for await (const load of loadsInStatus(client, parseStatuses(values.status))) {
    if (load.offer_count > 0) await reportOffers(client, load);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
