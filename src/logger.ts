import { createRequire } from 'node:module';
import type { LoggerOptions } from 'pino';

/**
 * Paths pino blanks before a line is written. Fastify's request serializer logs no headers or
 * bodies, but handlers and plugins may log objects that carry them.
 */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
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

/**
 * Query parameters that carry a credential: `token` (inbound e-mail), `hub.verify_token` (WhatsApp
 * subscription check), `ticket` (an event stream's one-use ticket: until used, it opens the
 * organization's stream), and any name that says key, secret, password, signature or token.
 */
const SECRET_QUERY_NAME = /token|secret|passw|signature|api[-_.]?key|^key$|^sig$|^auth|credential|ticket/i;

const decodeName = (raw: string) => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
};

/** The URL with the value of every secret-bearing query parameter replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return eq !== -1 && SECRET_QUERY_NAME.test(decodeName(name)) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}

/**
 * The fields Fastify's own request serializer logs, with credentials in the query string
 * redacted: every "incoming request" line carries `req.url`.
 */
export const serializers = {
  req: (req: LoggedRequest) => ({
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};

export function loggerOptions(level: string, options: { pretty?: boolean } = {}): LoggerOptions {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    serializers,
    ...(options.pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,startup' },
          },
        }
      : {}),
  };
}

/**
 * Logs for a person reading a terminal: pretty when one is attached outside production and
 * pino-pretty (a development dependency) is installed; JSON lines otherwise, for log collectors.
 */
export function prettyLogs(env: string, isTTY = !!process.stdout.isTTY): boolean {
  if (env === 'production' || !isTTY) return false;
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}
