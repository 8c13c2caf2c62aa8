import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.js';

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
    request.rawBody = body as string;
    try {
      done(null, body === '' ? {} : JSON.parse(body as string));
    } catch {
      done(new AppError(422, 'validation_error', 'Body is not valid JSON'), undefined);
    }
  });
}
