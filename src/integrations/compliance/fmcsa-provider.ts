import type { CensusRecord, ComplianceProvider, LookupResult } from './compliance-provider.js';

interface FmcsaCarrier {
  dotNumber?: number | string;
  legalName?: string;
  allowedToOperate?: string;
  oosDate?: string | null;
  statusCode?: string;
  commonAuthorityStatus?: string | null;
  contractAuthorityStatus?: string | null;
  bipdInsuranceOnFile?: string | null;
  bipdInsuranceRequired?: string | null;
  telephone?: string | null;
}

/**
 * The public FMCSA QCMobile API: `GET /carriers/docket-number/{mc}` and `GET /carriers/{dot}`,
 * authenticated with `webKey` in the query. The registry is authoritative: a carrier it does not
 * know is not registered.
 */
export class FmcsaProvider implements ComplianceProvider {
  readonly name = 'fmcsa';

  constructor(
    private readonly baseUrl: string,
    private readonly webKey: string,
  ) {}

  async lookup(
    query: { mc_number: string | null; dot_number: string | null },
    signal: AbortSignal,
  ): Promise<LookupResult> {
    const path = query.mc_number
      ? `/carriers/docket-number/${encodeURIComponent(query.mc_number)}`
      : `/carriers/${encodeURIComponent(query.dot_number ?? '')}`;
    const url = new URL(this.baseUrl.replace(/\/$/, '') + path);
    url.searchParams.set('webKey', this.webKey);
    let response: Response;
    try {
      response = await fetch(url, { signal, headers: { accept: 'application/json' } });
    } catch (err) {
      return { status: 'unavailable', error: `FMCSA request failed: ${(err as Error).name}` };
    }
    if (response.status === 404) return { status: 'not_found', authoritative: true, raw: null };
    if (!response.ok) return { status: 'unavailable', error: `FMCSA answered ${response.status}` };
    let body: { content?: unknown };
    try {
      body = (await response.json()) as { content?: unknown };
    } catch {
      return { status: 'unavailable', error: 'FMCSA answered with a body that is not JSON' };
    }
    const content = body.content;
    const carrier = (
      Array.isArray(content) ? content[0]?.carrier : (content as { carrier?: unknown } | null)?.carrier
    ) as FmcsaCarrier | undefined;
    if (!carrier) return { status: 'not_found', authoritative: true, raw: body };
    return { status: 'found', record: toRecord(carrier, query.mc_number), raw: body };
  }
}

function toRecord(c: FmcsaCarrier, mcNumber: string | null): CensusRecord {
  const insurance = c.bipdInsuranceOnFile;
  return {
    dot_number: c.dotNumber === undefined ? null : String(c.dotNumber).replace(/^0+/, ''),
    mc_number: mcNumber,
    legal_name: c.legalName ?? null,
    allowed_to_operate: c.allowedToOperate === 'Y',
    out_of_service: !!c.oosDate || c.statusCode === 'I',
    authorized_for_hire: c.commonAuthorityStatus === 'A' || c.contractAuthorityStatus === 'A',
    // The amount on file, in thousands of dollars; "0" means none.
    insurance_on_file: insurance === null || insurance === undefined ? null : Number(insurance) > 0,
    authority_granted_at: null,
    phone: c.telephone ?? null,
  };
}
