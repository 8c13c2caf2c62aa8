/** What a census registry knows of a motor carrier, in our own words. */
export interface CensusRecord {
  dot_number: string | null;
  mc_number: string | null;
  legal_name: string | null;
  /** The registry says the carrier may operate (FMCSA `allowedToOperate`). */
  allowed_to_operate: boolean;
  out_of_service: boolean;
  /** Holds active common or contract authority to haul for hire. */
  authorized_for_hire: boolean;
  /** Liability insurance on file; null when the registry does not say. */
  insurance_on_file: boolean | null;
  /** When operating authority was granted, if the registry knows. */
  authority_granted_at: string | null;
  phone: string | null;
}

export type LookupResult =
  | { status: 'found'; record: CensusRecord; raw: unknown }
  /** `authoritative`: the registry is complete, so absence means the carrier is not registered. */
  | { status: 'not_found'; authoritative: boolean; raw: unknown }
  | { status: 'unavailable'; error: string };

export interface ComplianceProvider {
  readonly name: string;
  /** Looks a carrier up by MC number when given, else by DOT number. */
  lookup(
    query: { mc_number: string | null; dot_number: string | null },
    signal: AbortSignal,
  ): Promise<LookupResult>;
}
