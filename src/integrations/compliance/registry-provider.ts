import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { CensusRecord, ComplianceProvider, LookupResult } from './compliance-provider.js';

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
});

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
      return { status: 'unavailable', error: `registry snapshot unreadable: ${(err as Error).message}` };
    }
    const record =
      (query.mc_number ? index.byMc.get(query.mc_number) : undefined) ??
      (!query.mc_number && query.dot_number ? index.byDot.get(query.dot_number) : undefined);
    if (!record) return { status: 'not_found', authoritative: false, raw: null };
    return { status: 'found', record, raw: record };
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
        incomplete: null,
      };
      if (record.mc_number) byMc.set(record.mc_number, record);
      if (record.dot_number) byDot.set(record.dot_number, record);
    }
    this.loaded = { text, byMc, byDot };
    return this.loaded;
  }
}
