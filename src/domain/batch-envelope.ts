/** What became of one item of a batch request. */
export type BatchItemStatus = 'created' | 'updated' | 'skipped' | 'failed';

export interface BatchItemError {
  code: string;
  message: string;
  param: string | null;
}

export interface BatchOutcome {
  index: number;
  status: BatchItemStatus;
  id: string | null;
  external_id: string | null;
  error: BatchItemError | null;
}

/** The fields every resource's `results[]` entry shares; the resource adds its own names. */
export interface BatchItemResult {
  success: boolean;
  operation: 'created' | 'updated' | null;
  error: string | null;
  error_code: string | null;
}

/**
 * THE batch answer (POST /carriers/batch, POST /loads/batch): the counts, `results` (each entry
 * the resource's own, built by `result` from the shared fields), `data`, `summary` and `errors`,
 * over the outcomes in request order. `success` is true when every item was created or updated
 * (200), else the caller answers 207.
 */
export function batchEnvelope<O extends BatchOutcome, R>(
  outcomes: readonly O[],
  result: (outcome: O, shared: BatchItemResult) => R,
  /** When the batch was processed (the product clock). */
  processedAt: Date,
) {
  const count = (s: BatchItemStatus) => outcomes.filter((o) => o.status === s).length;
  const created = count('created');
  const updated = count('updated');
  const skipped = count('skipped');
  const failed = count('failed');
  const applied = (o: O) => o.status === 'created' || o.status === 'updated';
  return {
    success: created + updated === outcomes.length,
    successful: created + updated,
    failed: skipped + failed,
    created,
    updated,
    processed_at: processedAt,
    results: outcomes.map((o) =>
      result(o, {
        success: applied(o),
        operation: o.status === 'created' || o.status === 'updated' ? o.status : null,
        error: o.error?.message ?? null,
        error_code: o.error?.code ?? null,
      }),
    ),
    data: outcomes.map((o) => ({
      index: o.index,
      status: o.status,
      id: o.id,
      external_id: o.external_id,
      error: o.error ? { code: o.error.code, message: o.error.message, param: o.error.param } : null,
    })),
    summary: { total: outcomes.length, created, updated, skipped, failed },
    errors: outcomes.flatMap((o) =>
      o.error ? [{ index: o.index, code: o.error.code, message: o.error.message, param: o.error.param }] : [],
    ),
  };
}
