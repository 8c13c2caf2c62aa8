import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { z } from 'zod';
import { validationFailed } from '../domain/errors.js';
import { defined } from '../lib/defined.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `ignore` lets a route take query parameters it does not declare: the providers' callbacks
     * (whose query the provider builds) and the health probes. Every other route refuses them.
     */
    unknownQuery?: 'ignore';
    /** The query parameters the route declares; filled in when the route is registered. */
    queryKeys?: ReadonlySet<string> | 'any';
  }
}

type Def = {
  type: string;
  shape?: Record<string, unknown>;
  in?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
};
// Every zod 4 schema carries its definition under `_zod.def`; Def names the members read here.
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The parameter names a query schema declares, or `any` when it takes any key (a record). */
export function declaredKeys(schema: z.ZodType | undefined): Set<string> | 'any' {
  if (!schema) return new Set();
  const def = defOf(schema);
  switch (def.type) {
    case 'object':
      return new Set(Object.keys(def.shape ?? {}));
    case 'record':
      return 'any';
    case 'pipe':
      return declaredKeys(def.in);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return declaredKeys(def.innerType);
    case 'union': {
      const keys = new Set<string>();
      for (const option of def.options ?? []) {
        const k = declaredKeys(option);
        if (k === 'any') return 'any';
        for (const key of k) keys.add(key);
      }
      return keys;
    }
    case 'intersection': {
      const left = declaredKeys(def.left);
      const right = declaredKeys(def.right);
      return left === 'any' || right === 'any' ? 'any' : new Set([...left, ...right]);
    }
    default:
      return 'any';
  }
}

/** Edit distance, bounded: enough to suggest `status` for `statsu`. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = defined(row[0], 'row[0]');
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = defined(row[j], 'row[j]');
      const swap = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        defined(row[j], 'row[j]') + 1,
        defined(row[j - 1], 'row[j - 1]') + 1,
        diagonal + swap,
      );
      diagonal = above;
    }
  }
  return defined(row[b.length], 'row[b.length]');
}

function unknownParameter(name: string, known: ReadonlySet<string>) {
  const near = [...known]
    .map((k) => ({ k, d: distance(name.toLowerCase(), k.toLowerCase()) }))
    .filter(({ d }) => d <= 2)
    .sort((x, y) => x.d - y.d)[0];
  const hint = near ? `; did you mean '${near.k}'?` : known.size ? '' : '; this operation takes none';
  return validationFailed(
    'query',
    [name],
    `Unknown query parameter '${name}'${hint}`,
    'extra_forbidden',
    name,
  );
}

/**
 * Refuses query parameters an operation does not declare, so a typo in a filter
 * (`?statsu=Created`) is a 422 naming it instead of an unfiltered answer. Runs before validation,
 * so the unknown name is reported first. Bodies keep their own rule (unknown fields ignored).
 */
async function queryParamsPlugin(app: FastifyInstance) {
  app.addHook('onRoute', (route: RouteOptions) => {
    const config = route.config ?? {};
    const hidden = route.schema?.hide;
    const keys =
      config.unknownQuery === 'ignore' || hidden
        ? 'any'
        : // With the zod type provider, a route's querystring schema is a zod schema.
          // With the zod type provider, a route's querystring schema is a zod schema.
          declaredKeys(route.schema?.querystring as z.ZodType | undefined);
    route.config = { ...route.config, queryKeys: keys };
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const known = request.routeOptions.config.queryKeys;
    if (known === undefined || known === 'any') return;
    const query = request.query;
    if (!query) return;
    for (const name of Object.keys(query)) {
      if (!known.has(name)) throw unknownParameter(name, known);
    }
  });
}

export const queryParams = fp(queryParamsPlugin, { name: 'query-params' });
