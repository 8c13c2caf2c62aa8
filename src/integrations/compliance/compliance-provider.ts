/** What a census registry knows of a motor carrier, in our own words. */
export interface CensusRecord {
  dot_number: string | null;
  mc_number: string | null;
  legal_name: string | null;
  /** The registry says the carrier may operate (FMCSA `allowedToOperate`). */
  allowed_to_operate: boolean;
  /** Under an out-of-service order (an inactive USDOT number alone is not one). */
  out_of_service: boolean;
  /** The order's date and reason, when the registry gives them. */
  out_of_service_detail: string | null;
  /** Holds active common or contract authority to haul for hire. */
  authorized_for_hire: boolean;
  /** Liability insurance on file; null when the registry does not say. */
  insurance_on_file: boolean | null;
  /** When the operating authority standing now was granted (`YYYY-MM-DD`), if known. */
  authority_granted_at: string | null;
  /** Where `authority_granted_at` comes from, for the stored check. */
  authority_source: string | null;
  /**
   * When the USDOT number was registered (`YYYY-MM-DD`), if known. Operating authority is applied
   * for under a USDOT number, so it is never older than this.
   */
  registered_at: string | null;
  /** The phone on file with the registry, as the registry writes it. */
  phone: string | null;
  /** The census facts the fraud signals read; null where the source does not say. */
  census: CensusContact | null;
  /** Liability (BI&PD) insurance on file, from the licensing and insurance data; null: unknown. */
  liability: LiabilityInsurance | null;
  /** Other USDOT numbers whose census record shares this carrier's phone, e-mail or address. */
  shared_with: SharedContact[] | null;
  /**
   * Set when part of the lookup got no answer (a second source was down): a fact that part
   * would give is unknown, not absent. Says what failed.
   */
  incomplete: string | null;
}

/** A census (MCS-150) record's contact facts, in our own words. */
export interface CensusContact {
  email: string | null;
  /** Street, city, state and ZIP, as one upper-case line. */
  address: string | null;
  /** When the MCS-150 was last filed (`YYYY-MM-DD`). */
  mcs150_date: string | null;
  power_units: number | null;
}

export interface LiabilityInsurance {
  /** The largest BI&PD coverage on file, in US dollars (0: none on file). */
  amount_usd: number;
  /** The earliest cancellation date (`YYYY-MM-DD`) of a policy on file, when one is pending. */
  cancellation_effective: string | null;
}

export interface SharedContact {
  dot_number: string;
  via: 'phone' | 'email' | 'address';
}

export type LookupResult =
  | { status: 'found'; record: CensusRecord; raw: unknown }
  /** `authoritative`: the registry is complete, so absence means the carrier is not registered. */
  | { status: 'not_found'; authoritative: boolean; raw: unknown }
  /** No usable answer (down, timed out, misconfigured): nothing is concluded and the check is retried. */
  | { status: 'unavailable'; error: string }
  /** The provider has no data to check with (a registry without a snapshot file): nothing is concluded. */
  | { status: 'no_data'; error: string };

export interface ComplianceProvider {
  readonly name: string;
  /** Looks a carrier up by its MC and/or DOT number. */
  lookup(
    query: { mc_number: string | null; dot_number: string | null },
    signal: AbortSignal,
  ): Promise<LookupResult>;
  /** Once at startup: a warning when the provider has nothing to check with, else null. */
  readiness?(): Promise<string | null>;
}
