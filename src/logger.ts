import type { LoggerOptions } from 'pino';

/**
 * Paths pino blanks before a line is written. Fastify's request serializer logs no headers or
 * bodies, but handlers and plugins may log objects that carry them.
 */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.password',
  '*.access_token',
  '*.key',
  '*.signing_secret',
  'password',
  'access_token',
  'key',
  'secret',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
  };
}
