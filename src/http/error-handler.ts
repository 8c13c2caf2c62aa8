import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { translatePgError } from '../db/pg-errors.js';
import { AppError, isAppError, pathToParam, type ValidationIssue } from '../domain/errors.js';
import { errorMessage } from '../lib/error-text.js';
import { isJsonObject } from '../lib/json-object.js';
import { internalError } from './http-errors.js';
import { clientWentAway } from './request-log.js';
import { RouteMethods } from './route-methods.js';
import { ID_FORMAT_ISSUE } from './schemas.js';

type Source = 'body' | 'query' | 'path' | 'header';

/**
 * The longest path parameter the router matches (Fastify's `maxParamLength`); a longer one is
 * 414 `uri_too_long`. Every id parameter is at most 100 characters by its schema as well.
 */
export const MAX_PATH_PARAM_LENGTH = 100;

const contextToSource: Record<string, Source> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

interface FastifyValidationItem {
  keyword: string;
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

function valueAt(root: unknown, path: (string | number)[]): unknown {
  let current = root;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = Reflect.get(current, part);
  }
  return current;
}

function requestPart(request: FastifyRequest, source: Source): unknown {
  switch (source) {
    case 'body':
      return request.body;
    case 'query':
      return request.query;
    case 'path':
      return request.params;
    case 'header':
      return request.headers;
  }
}

/** One zod issue (as fastify-type-provider-zod hands it over) as a `detail` entry. */
function toIssue(item: FastifyValidationItem, source: Source, request: FastifyRequest): ValidationIssue {
  const path = item.instancePath
    .split('/')
    .slice(1)
    .filter((p) => p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const params = item.params ?? {};
  const input = valueAt(requestPart(request, source), path);
  let type: string = item.keyword;
  let msg = item.message ?? 'Invalid value';
  const ctx: Record<string, unknown> = {};
  switch (item.keyword) {
    case 'invalid_type':
      if (input === undefined) {
        type = 'missing';
        msg = 'Field required';
      } else {
        type = `${String(params.expected)}_type`;
      }
      break;
    case 'too_big':
      ctx.maximum = params.maximum;
      break;
    case 'too_small':
      ctx.minimum = params.minimum;
      break;
    case 'invalid_value':
      type = 'enum';
      ctx.expected = params.values;
      break;
    case 'invalid_format':
      ctx.format = params.format;
      break;
    case 'custom':
      type = 'value_error';
      break;
  }
  const issue: ValidationIssue = { loc: [source, ...path], msg, type };
  if (input !== undefined && source !== 'header') issue.input = input;
  if (Object.keys(ctx).length > 0) issue.ctx = ctx;
  return issue;
}

function validationError(items: ValidationIssue[]): AppError {
  const first = items[0];
  const param = first ? pathToParam(first.loc.slice(1)) : null;
  const message = first ? (param ? `${param}: ${first.msg}` : first.msg) : 'Validation failed';
  return new AppError(422, 'validation_error', message, param, { detail: items });
}

/**
 * An id of the wrong kind or form anywhere in the request part: 400 `invalid_id_format` with
 * `param` naming it. Like the other non-validation errors it carries no `detail`.
 */
function invalidIdFormat(
  items: FastifyValidationItem[],
  source: Source,
  request: FastifyRequest,
): AppError | null {
  const item = items.find((v) => {
    const custom = v.params?.params;
    return v.keyword === 'custom' && isJsonObject(custom) && typeof custom[ID_FORMAT_ISSUE] === 'string';
  });
  if (!item) return null;
  const issue = toIssue(item, source, request);
  const param = pathToParam(issue.loc.slice(1));
  return new AppError(400, ID_FORMAT_ISSUE, param ? `${param}: ${issue.msg}` : issue.msg, param);
}

function bodyError(msg: string, type: string): AppError {
  return validationError([{ loc: ['body'], msg, type }]);
}

/** Maps anything thrown during a request to the one error shape of the API. */
export function toAppError(err: unknown, request: FastifyRequest): AppError {
  if (isAppError(err)) return err;
  // Fastify's own errors carry these members; for anything else they read undefined and the checks below fail.
  const fe = err as FastifyError & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(fe)) {
    const source = contextToSource[fe.validationContext ?? 'body'] ?? 'body';
    // hasZodFastifySchemaValidationErrors checked that `validation` holds the type provider's items.
    const items = fe.validation as unknown as FastifyValidationItem[];
    return (
      invalidIdFormat(items, source, request) ??
      validationError(items.map((v) => toIssue(v, source, request)))
    );
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return bodyError('Body is not valid JSON', 'json_invalid');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return bodyError('Body must not be empty when Content-Type is application/json', 'json_invalid');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', 'Request body is larger than this endpoint accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        415,
        'unsupported_media_type',
        `Unsupported Content-Type: ${request.headers['content-type'] ?? 'none'}`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(400, 'bad_request', 'Content-Length does not match the body');
    case 'FST_ERR_BAD_URL':
      return new AppError(400, 'bad_request', 'The URL path is not valid percent-encoded UTF-8');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError(
        414,
        'uri_too_long',
        `A path parameter is longer than ${MAX_PATH_PARAM_LENGTH} characters`,
      );
  }
  if (err instanceof SyntaxError && fe.statusCode === 400)
    return bodyError('Body is not valid JSON', 'json_invalid');
  const translated = translatePgError(err);
  if (translated) return translated;
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code = fe.statusCode === 404 ? 'not_found' : 'bad_request';
    // A framework message names Fastify's internals; the status line says what went wrong.
    const message = fe.code?.startsWith('FST_') ? (STATUS_CODES[fe.statusCode] ?? 'Bad Request') : fe.message;
    return new AppError(fe.statusCode, code, message);
  }
  return internalError();
}

/**
 * Every validation error carries `detail`. One raised without it (a database refusal of a value,
 * whose field is not known) gets a single entry on the body.
 */
function detailOf(error: AppError): ValidationIssue[] | undefined {
  if (error.options.detail || error.code !== 'validation_error') return error.options.detail;
  return [{ loc: ['body'], msg: error.message, type: 'value_error' }];
}

export function renderError(error: AppError) {
  const body: { error: { code: string; message: string; param: string | null }; detail?: ValidationIssue[] } =
    {
      error: { code: error.code, message: error.message, param: error.param },
    };
  const detail = detailOf(error);
  if (detail) body.detail = detail;
  return body;
}

export function sendError(reply: FastifyReply, error: AppError) {
  if (error.options.headers) reply.headers(error.options.headers);
  return reply.status(error.statusCode).send(renderError(error));
}

async function errorHandlerPlugin(app: FastifyInstance) {
  app.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err, request);
    if (appError.statusCode >= 500 && clientWentAway(err, request)) {
      request.log.info({ err: { message: errorMessage(err) } }, 'client closed the connection');
    } else if (appError.statusCode >= 500) {
      // The full error goes to the log with the request id; the client sees only the code.
      request.log.error({ err }, 'request failed');
    } else if (!isAppError(err)) {
      request.log.debug({ code: appError.code, status: appError.statusCode }, 'request rejected');
    }
    return sendError(reply, appError);
  });
  // A path that exists under other methods is 405 with `Allow`, not 404.
  const routes = new RouteMethods();
  app.addHook('onRoute', (route) => routes.add(route.method, route.url ?? route.path));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // A plain OPTIONS (no CORS preflight) stays an unknown route.
    const allowed = request.method === 'OPTIONS' ? [] : routes.allowedFor(path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        reply,
        new AppError(
          405,
          'method_not_allowed',
          `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`,
        ),
      );
    }
    return sendError(reply, new AppError(404, 'not_found', `Route ${request.method} ${path} not found`));
  });
}

/**
 * Fastify's `frameworkErrors`: a malformed percent-encoding or an over-long path parameter, met
 * while routing, before any hook. Answered in the API's error body with the request id.
 */
export function renderFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(err, request);
  if (appError.statusCode >= 500) request.log.error({ err }, 'request failed');
  reply.header('x-request-id', request.id);
  return sendError(reply, appError);
}

const clientErrors: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'request_header_fields_too_large',
    message: 'The request line and headers are larger than the server accepts',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request_timeout',
    message: 'The request took too long to arrive',
  },
};

/**
 * Fastify's `clientErrorHandler` (Node's `clientError`): a request too malformed for Node to parse
 * (headers too large, a broken request line, a timeout) never reaches Fastify, so it is answered on
 * the socket directly, in the API's error body, and the connection is closed.
 */
export function answerClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = clientErrors[err.code ?? ''] ?? {
    status: 400,
    code: 'bad_request',
    message: 'The request is not valid HTTP',
  };
  this.log.debug({ code: err.code, status: known.status }, 'client error');
  // As Node itself does: no answer when a response on this socket has already begun, which the
  // peer would read as part of that response.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(renderError(new AppError(known.status, known.code, known.message)));
    socket.write(
      `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export const errorHandler = fp(errorHandlerPlugin, { name: 'error-handler' });
