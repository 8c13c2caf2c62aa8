import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { errorMessage } from '../../lib/error-text.js';
import { objectOf } from '../../lib/json-object.js';
import type { CensusRecord, ComplianceProvider, LookupResult, SharedContact } from './compliance-provider.js';

const digits = (v: string | number | null | undefined) =>
  v === null || v === undefined ? null : String(v).replace(/\D/g, '').replace(/^0+/, '') || null;

const snapshotRecord = z.object({
  dot_number: z.union([z.string(), z.number()]).nullish(),
  mc_number: z.union([z.string(), z.number()]).nullish(),
  legal_name: z.string().nullish(),
  allowed_to_operate: z.boolean().default(true),
  out_of_service: z.boolean().default(false),
  authorized_for_hire: z.boolean().default(true),
  insurance_on_file: z.boolean().nullish(),
  authority_granted_at: z.string().nullish(),
  phone: z.string().nullish(),
  email: z.string().nullish(),
  /** The physical address as one line. */
  address: z.string().nullish(),
  mcs150_date: z.string().nullish(),
  power_units: z.number().int().min(0).nullish(),
  /** The largest liability (BI&PD) coverage on file, in US dollars. */
  liability_usd: z.number().min(0).nullish(),
  insurance_cancellation_effective: z.string().nullish(),
});

/** How to get a snapshot, for the warning a provider without one gives. */
export const SNAPSHOT_HINT =
  'write a JSON array of census records there (see docs/carrier-vetting.md, "Getting a registry snapshot"), or set COMPLIANCE_PROVIDER=fmcsa with FMCSA_WEB_KEY';

/** Whether node:fs failed for want of the file (its system errors carry `code`). */
const isMissing = (err: unknown) => objectOf(err)?.code === 'ENOENT';

/**
 * Carrier census records from a local JSON file (an array of records): the default provider, and
 * what tests use. A snapshot is partial by nature, so a carrier missing from it is unverified, not
 * blocked. The file is read again when it changes.
 */
export class RegistryProvider implements ComplianceProvider {
  readonly name = 'registry';
  private loaded: { text: string; byMc: Map<string, CensusRecord>; byDot: Map<string, CensusRecord> } | null =
    null;

  constructor(private readonly file: string) {}

  async lookup(query: { mc_number: string | null; dot_number: string | null }): Promise<LookupResult> {
    let index: NonNullable<typeof this.loaded>;
    try {
      index = await this.load();
    } catch (err) {
      if (isMissing(err)) return { status: 'no_data', error: `no registry snapshot at ${this.file}` };
      return { status: 'unavailable', error: `registry snapshot unreadable: ${errorMessage(err)}` };
    }
    const record =
      (query.mc_number ? index.byMc.get(query.mc_number) : undefined) ??
      (!query.mc_number && query.dot_number ? index.byDot.get(query.dot_number) : undefined);
    if (!record) return { status: 'not_found', authoritative: false, raw: null };
    return { status: 'found', record, raw: record };
  }

  /** Once at startup: a warning when there is no snapshot to check with, else null. */
  async readiness(): Promise<string | null> {
    try {
      await this.load();
      return null;
    } catch (err) {
      if (!isMissing(err))
        return `The carrier registry snapshot ${this.file} is unreadable: ${errorMessage(err)}`;
      return `No carrier registry snapshot at ${this.file}: every compliance check answers no_data until one exists; ${SNAPSHOT_HINT}`;
    }
  }

  private async load() {
    const text = await readFile(this.file, 'utf8');
    if (this.loaded?.text === text) return this.loaded;
    const records = z.array(snapshotRecord).parse(JSON.parse(text));
    const byMc = new Map<string, CensusRecord>();
    const byDot = new Map<string, CensusRecord>();
    for (const r of records) {
      const record: CensusRecord = {
        dot_number: digits(r.dot_number),
        mc_number: digits(r.mc_number),
        legal_name: r.legal_name ?? null,
        allowed_to_operate: r.allowed_to_operate,
        out_of_service: r.out_of_service,
        out_of_service_detail: null,
        authorized_for_hire: r.authorized_for_hire,
        insurance_on_file: r.insurance_on_file ?? null,
        authority_granted_at: r.authority_granted_at ?? null,
        authority_source: r.authority_granted_at ? 'registry snapshot' : null,
        registered_at: null,
        phone: r.phone ?? null,
        census: {
          email: r.email?.trim().toLowerCase() || null,
          address: r.address?.trim().toUpperCase() || null,
          mcs150_date: r.mcs150_date ?? null,
          power_units: r.power_units ?? null,
        },
        liability:
          r.liability_usd === undefined || r.liability_usd === null
            ? null
            : {
                amount_usd: r.liability_usd,
                cancellation_effective: r.insurance_cancellation_effective ?? null,
              },
        shared_with: [],
        incomplete: null,
      };
      if (record.mc_number) byMc.set(record.mc_number, record);
      if (record.dot_number) byDot.set(record.dot_number, record);
    }
    linkSharedContacts([...byDot.values(), ...[...byMc.values()].filter((r) => !r.dot_number)]);
    this.loaded = { text, byMc, byDot };
    return this.loaded;
  }
}

/** Records of the snapshot sharing a phone, e-mail or address with another USDOT number's record. */
function linkSharedContacts(records: CensusRecord[]) {
  const keys = (r: CensusRecord): [SharedContact['via'], string | null | undefined][] => [
    ['phone', r.phone?.replace(/\D/g, '').replace(/^1(?=\d{10}$)/, '')],
    ['email', r.census?.email],
    ['address', r.census?.address],
  ];
  const holders = new Map<string, CensusRecord[]>();
  for (const r of records)
    for (const [via, value] of keys(r))
      if (value) holders.set(`${via}:${value}`, [...(holders.get(`${via}:${value}`) ?? []), r]);
  for (const r of records) {
    const shared: SharedContact[] = [];
    for (const [via, value] of keys(r)) {
      for (const o of value ? (holders.get(`${via}:${value}`) ?? []) : []) {
        if (o !== r && o.dot_number && o.dot_number !== r.dot_number)
          shared.push({ dot_number: o.dot_number, via });
      }
    }
    r.shared_with = shared;
  }
}
