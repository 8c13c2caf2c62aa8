import { z } from 'zod';
import { documentAs } from '../../http/openapi.js';
import { pageQuery } from '../../http/page-query.js';
import { dateTime, nonEmptyText, prefixedId } from '../../http/schemas.js';
import { memberAt, objectOf } from '../../lib/json-object.js';
import { loadFilters, loadFiltersShape } from '../loads/index.js';
import { VIEW_VISIBILITIES } from './load-views-tables.js';

type StoredFilters = Record<string, string | string[]>;

const filterNumber = () => z.number().min(-1e12).max(1e12);
const filterValue = z.union([
  z.string().max(5000),
  filterNumber(),
  z.boolean(),
  z.array(z.union([z.string().max(5000), filterNumber(), z.boolean()])).max(50),
]);

/**
 * A view's filters: the list's query parameter names, each to a value or a list of values,
 * validated exactly like the query string (an unknown name or a bad value is a 422 naming
 * `filters.<name>`). Stored as the query string would carry them: strings.
 */
const filtersInput = documentAs(
  z.record(z.string().max(100), filterValue),
  // Documented per filter: its query parameter's schema, a list one also as a single value.
  (toJson) => ({
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      Object.entries(loadFiltersShape).map(([name, schema]) => {
        const doc = toJson(schema);
        const items = 'type' in doc && doc.type === 'array' ? objectOf(memberAt(doc, 'items')) : undefined;
        return [name, items ? { anyOf: [items, doc] } : doc];
      }),
    ),
  }),
)
  .transform((raw, ctx) => {
    const stored: StoredFilters = {};
    for (const [name, value] of Object.entries(raw)) {
      stored[name] = Array.isArray(value) ? value.map(String) : String(value);
    }
    const parsed = loadFilters.safeParse(stored);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
        for (const key of keys) {
          ctx.addIssue({
            code: 'custom',
            message: key ? `Unknown filter '${key}'` : issue.message,
            path: key ? [key] : issue.path,
          });
        }
      }
      return z.NEVER;
    }
    return stored;
  })
  .meta({
    description:
      'GET /loads query parameters (not page, page_size or view_id) to a value or a list of values.',
  });

export const createLoadViewBody = z.object({
  name: nonEmptyText(100),
  filters: filtersInput,
  visibility: z.enum(VIEW_VISIBILITIES).default('private'),
});

export const updateLoadViewBody = z.object({
  name: nonEmptyText(100).optional(),
  filters: filtersInput.optional(),
  visibility: z.enum(VIEW_VISIBILITIES).optional(),
});

export const listLoadViewsQuery = pageQuery();
export const loadViewIdParams = z.object({ view_id: prefixedId('loadView') });

export const loadViewSchema = z
  .object({
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    filters: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    visibility: z.enum(VIEW_VISIBILITIES),
    owner_id: z.string().meta({ description: 'The user or API key that created the view.' }),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'LoadView' });
export type LoadView = z.infer<typeof loadViewSchema>;
