import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { cooperative } from '../lib/yielding.js';
import { decodePieces, readBodyBytes, readBodyPieces } from './body-text.js';
import type { BodyWorkers } from './body-workers.js';
import { forbiddenJsonKey, jsonNestingExceeds, jsonTooDeep, MAX_JSON_DEPTH } from './json-depth.js';
import { outlineJson, PiecedText } from './json-outline.js';

/** Bodies from this size on are parsed a piece at a time. */
const LARGE_BODY = 256 * 1024;

type ParseJson = ReturnType<FastifyInstance['getDefaultJsonParser']>;

/**
 * In this (encapsulated) plugin, JSON bodies are read (decoded as they arrive, readBodyPieces) and
 * parsed as the application's parser parses them
 * (empty is no body, nesting bounded, `__proto__` and `constructor.prototype` refused by name,
 * the same errors), but a body of LARGE_BODY or more whose root is an object is parsed a member
 * and an array element at a time, with the event loop given back every few milliseconds: parsing
 * a 6 MiB batch in one JSON.parse holds every other request for a quarter of a second or more.
 * Such a body is read from the pieces it was decoded in, never joined into one string (joining
 * 6 MiB took 10-25 ms in one go).
 *
 * With `workers`, a large body on a route that names a body worker (`config.bodyWorker`) is
 * handed to one as bytes instead, and its items come back checked (body-workers.ts); a body the
 * worker leaves to this thread (one it would refuse) is read here as above.
 */
export function parseLargeJsonCooperatively(app: FastifyInstance, workers?: BodyWorkers) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    async (request: FastifyRequest, payload: Parameters<typeof readBodyPieces>[1]) => {
      const kind = request.routeOptions.config.bodyWorker;
      let read: string[];
      if (workers?.takes(request) && kind) {
        const checked = await workers.check(request, kind, await readBodyBytes(request, payload));
        if ('body' in checked) return checked.body;
        read = decodePieces(checked.bytes);
      } else {
        read = await readBodyPieces(request, payload);
      }
      const pieces = new PiecedText(read);
      if (pieces.length === 0) return undefined;
      if (pieces.length >= LARGE_BODY) {
        const parsed = await parseInPieces(request, pieces, parseJson);
        if (parsed !== NOT_AN_OBJECT) return parsed;
      }
      const text = pieces.pieces.join('');
      if (jsonNestingExceeds(text)) throw jsonTooDeep();
      return parseWhole(request, text, parseJson);
    },
  );
}

const NOT_AN_OBJECT = Symbol('not an object');

/** One JSON text through the application's parser, with its errors. */
function parseWhole(request: FastifyRequest, text: string, parseJson: ParseJson): unknown {
  if (text === '') throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  let result: { error: Error | null; value: unknown } = { error: null, value: undefined };
  parseJson(request, text, (error, value) => {
    result = { error, value };
  });
  if (result.error) throw forbiddenJsonKey(text) ?? result.error;
  return result.value;
}

/**
 * The body parsed member by member and, for a member that is an array, element by element; each
 * piece goes through the application's parser, which refuses what it would refuse in the whole.
 * NOT_AN_OBJECT when the text is not a JSON object (it is then parsed whole, and refused if it is
 * not JSON).
 */
async function parseInPieces(
  request: FastifyRequest,
  text: PiecedText,
  parseJson: ParseJson,
): Promise<unknown> {
  const outline = await outlineJson(text);
  if (!outline) return NOT_AN_OBJECT;
  if (outline.depth > MAX_JSON_DEPTH) throw jsonTooDeep();
  const turns = cooperative();
  // A forbidden key is reported once the rest is known to be JSON, as parsing the whole would.
  let forbidden: Error | null = null;
  const piece = (range: [number, number]) => {
    const slice = text.slice(range[0], range[1]);
    try {
      return parseWhole(request, slice, parseJson);
    } catch (error) {
      if (error instanceof AppError) forbidden ??= error;
      else throw error;
    }
  };
  const result: Record<string, unknown> = {};
  for (const member of outline.members) {
    const key = piece(member.key);
    if (typeof key !== 'string') throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
    let value: unknown;
    if (member.elements) {
      const elements: unknown[] = [];
      for (const element of member.elements) {
        elements.push(piece(element));
        await turns.pause();
      }
      value = elements;
    } else {
      value = piece(member.value);
      await turns.pause();
    }
    if (key === '__proto__' || (key === 'constructor' && hasOwnPrototype(value)))
      forbidden ??= forbiddenJsonKey(JSON.stringify(key));
    else result[key] = value;
  }
  if (forbidden) throw forbidden;
  return result;
}

const hasOwnPrototype = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype');
