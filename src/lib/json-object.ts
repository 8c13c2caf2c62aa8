/** A JSON object, as parsed from or written to JSON text. */
export type JsonObject = Record<string, unknown>;

/** A value that is an object and not an array: in parsed JSON, a JSON object. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` when it is a JSON object, else undefined. */
export const objectOf = (value: unknown): JsonObject | undefined => (isJsonObject(value) ? value : undefined);

/** The JSON objects of `value` when it is an array, else none. */
export const objectsOf = (value: unknown): JsonObject[] =>
  Array.isArray(value) ? value.filter(isJsonObject) : [];

/** The member at `path` below `value`, through JSON objects only; undefined where one is missing. */
export const memberAt = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((at, key) => objectOf(at)?.[key], value);
