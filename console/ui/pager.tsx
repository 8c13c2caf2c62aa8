import type { Schemas } from '../api/client';

/** Previous and next page of a list, with where the list stands. */
export function Pager({
  pagination,
  noun,
  onPage,
}: {
  pagination: Schemas['Pagination'] | undefined;
  noun: string;
  onPage(page: number): void;
}) {
  if (!pagination) return null;
  return (
    <nav aria-label={`Pages of ${noun}`} className="pager">
      <button type="button" disabled={!pagination.has_prev} onClick={() => onPage(pagination.page - 1)}>
        Previous page
      </button>
      <span>
        Page {pagination.page} of {Math.max(1, pagination.total_pages)} · {pagination.total_count} {noun}
      </span>
      <button type="button" disabled={!pagination.has_next} onClick={() => onPage(pagination.page + 1)}>
        Next page
      </button>
    </nav>
  );
}
