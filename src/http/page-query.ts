import { z } from 'zod';
import type { Pagination } from '../domain/pagination.js';
import { queryIntOr } from './schemas.js';

export const MAX_PAGE_SIZE = 100;

/** `page` and `page_size` for a list endpoint; the default page size is 20 (10 on the load list). */
export function pageQuery(defaultPageSize = 20) {
  return z.object({
    page: queryIntOr(1, 1_000_000, 1),
    page_size: queryIntOr(1, MAX_PAGE_SIZE, defaultPageSize),
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
  .meta({ id: 'Pagination' }) satisfies z.ZodType<Pagination>;

/** The envelope of every list endpoint: `{data, pagination}`. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), pagination: paginationSchema });
}
