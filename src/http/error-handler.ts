import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { translatePgError } from '../db/pg-errors.js';
import {
  AppError,
  internalError,
  isAppError,
  notFound,
  pathToParam,
  type ValidationIssue,
} from './errors.js';

type Source = 'body' | 'query' | 'path' | 'header';

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
    current = (current as Record<string | number, unknown>)[part];
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

function bodyError(msg: string, type: string): AppError {
  return validationError([{ loc: ['body'], msg, type }]);
}

/** Maps anything thrown during a request to the one error shape of the API. */
export function toAppError(err: unknown, request: FastifyRequest): AppError {
  if (isAppError(err)) return err;
  const fe = err as FastifyError & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(fe)) {
    const source = contextToSource[fe.validationContext ?? 'body'] ?? 'body';
    return validationError(
      (fe.validation as unknown as FastifyValidationItem[]).map((v) => toIssue(v, source, request)),
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
      return notFound('Route');
  }
  if (err instanceof SyntaxError && fe.statusCode === 400)
    return bodyError('Body is not valid JSON', 'json_invalid');
  const translated = translatePgError(err);
  if (translated) return translated;
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError(fe.statusCode, fe.statusCode === 404 ? 'not_found' : 'bad_request', fe.message);
  }
  return internalError();
}

export function renderError(error: AppError) {
  const body: { error: { code: string; message: string; param: string | null }; detail?: ValidationIssue[] } =
    {
      error: { code: error.code, message: error.message, param: error.param },
    };
  if (error.options.detail) body.detail = error.options.detail;
  return body;
}

export function sendError(reply: FastifyReply, error: AppError) {
  if (error.options.headers) reply.headers(error.options.headers);
  return reply.status(error.statusCode).send(renderError(error));
}

async function errorHandlerPlugin(app: FastifyInstance) {
  app.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err, request);
    if (appError.statusCode >= 500) {
      // The full error goes to the log with the request id; the client sees only the code.
      request.log.error({ err }, 'request failed');
    } else if (!isAppError(err)) {
      request.log.debug({ code: appError.code, status: appError.statusCode }, 'request rejected');
    }
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new AppError(404, 'not_found', `Route ${request.method} ${request.url.split('?')[0]} not found`),
    ),
  );
}

export const errorHandler = fp(errorHandlerPlugin, { name: 'error-handler' });
