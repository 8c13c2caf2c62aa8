/** Where a list page stands: the `pagination` half of every list answer. */
export interface Pagination {
  page: number;
  page_size: number;
  total_count: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export function pagination(page: number, pageSize: number, totalCount: number): Pagination {
  const totalPages = Math.ceil(totalCount / pageSize);
  return {
    page,
    page_size: pageSize,
    total_count: totalCount,
    total_pages: totalPages,
    has_next: page < totalPages,
    has_prev: page > 1,
  };
}

export const offsetOf = (page: number, pageSize: number) => (page - 1) * pageSize;
