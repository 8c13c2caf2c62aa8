import type { FastifyInstance } from 'fastify';
import { validationFailed } from '../domain/errors.js';
import { jsonNestingExceeds, jsonTooDeep } from './json-depth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body as received, for signature checks over the exact bytes (set by `keepRawJsonBody`). */
    rawBody?: string;
  }
}

/**
 * In this (encapsulated) plugin, JSON bodies are kept as received in `request.rawBody` as well as
 * parsed: platforms sign the raw bytes, and a re-serialized body would not verify.
 */
export function keepRawJsonBody(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // parseAs 'string' hands a string; toString() keeps it as it is and satisfies the Buffer half of the type.
    const text = body.toString();
    request.rawBody = text;
    if (jsonNestingExceeds(text)) return done(jsonTooDeep(), undefined);
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      return done(validationFailed('body', [], 'Body is not valid JSON', 'json_invalid'), undefined);
    }
    done(null, parsed);
  });
}
