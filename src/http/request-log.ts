import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { objectOf } from '../lib/json-object.js';

/** Error codes a socket reports when the client went away first. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ECONNABORTED']);

/** Whether a failure is the client closing its connection (not a fault of ours). */
export function clientWentAway(err: unknown, request: FastifyRequest): boolean {
  const e = objectOf(err);
  if (e && ((typeof e.code === 'string' && CLIENT_GONE.has(e.code)) || e.message === 'aborted')) return true;
  return request.raw.aborted === true || (request.raw.socket?.destroyed === true && !request.raw.complete);
}

/**
 * Fastify's request log lines, with one change: a request whose client closed the connection
 * before the response went out is logged at info, not error. It is nothing an operator can fix,
 * and at error level it buries the faults that are ours.
 */
export class RequestLogController extends LogController {
  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (error && clientWentAway(error, request)) {
      if (this.isLogDisabled(request)) return;
      reply.log.info(
        { res: reply, err: { code: objectOf(error)?.code, message: error.message } },
        'client closed the connection before the response was sent',
      );
      return;
    }
    super.requestCompleted(error, request, reply, metadata);
  }
}
