import type { z } from 'zod';

/** An event type as the module that emits it declares it: what it means and the shape of `data`. */
export interface EventDefinition {
  readonly description: string;
  readonly data: z.ZodType;
}

/** A module's event types (`load.created`, ...), each with its definition. */
export type EventDefinitions<T extends string> = { readonly [K in T]: EventDefinition };
