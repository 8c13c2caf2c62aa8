import { z } from 'zod';
import type { EventDefinition, EventDefinitions } from '../../domain/events.js';

/** The one event the webhooks module emits itself. */
export const webhookEvents = {
  ping: {
    description: 'A test event sent by POST /webhooks/endpoints/{id}/test.',
    data: z.object({ endpoint_id: z.string(), message: z.string() }),
  },
} as const satisfies EventDefinitions<'ping'>;

/**
 * The event catalogue (docs/decisions/0022-webhooks-outbox.md): every type, in catalogue order, with what it
 * means and the shape of `data`. Each module declares its own events; the catalogue is put
 * together where every module is in sight (src/event-catalogue.ts) and handed to this module.
 */
export type EventCatalogue = readonly [CatalogueEntry, ...CatalogueEntry[]];
type CatalogueEntry = EventDefinition & { readonly type: string };

/** The catalogue's type names, in its order. */
export const typeNames = (catalogue: EventCatalogue): readonly [string, ...string[]] => {
  const [first, ...rest] = catalogue;
  return [first.type, ...rest.map((e) => e.type)];
};

/** JSON schema of a payload; datetimes are ISO 8601 strings on the wire. */
export function payloadSchema(data: z.ZodType): Record<string, unknown> {
  const dataSchema = z.toJSONSchema(data, {
    io: 'output',
    unrepresentable: 'any',
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === 'date') {
        ctx.jsonSchema.type = 'string';
        ctx.jsonSchema.format = 'date-time';
      }
    },
  });
  return dataSchema;
}
