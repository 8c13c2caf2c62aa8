import { z } from 'zod';
import { queryInt } from './schemas.js';

export const MAX_PAGE_SIZE = 100;

/** `page` and `page_size` for a list endpoint; the default page size is 20 (10 on the load list). */
export function pageQuery(defaultPageSize = 20) {
  return z.object({
    page: queryInt(1, 1_000_000).default(1),
    page_size: queryInt(1, MAX_PAGE_SIZE).default(defaultPageSize),
  });
}

export const paginationSchema = z
  .object({
    page: z.number().int(),
    page_size: z.number().int(),
    total_count: z.number().int(),
    total_pages: z.number().int(),
    has_next: z.boolean(),
    has_prev: z.boolean(),
  })
  .meta({ id: 'Pagination' });

export type Pagination = z.infer<typeof paginationSchema>;

/** The envelope of every list endpoint: `{data, pagination}`. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), pagination: paginationSchema });
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
