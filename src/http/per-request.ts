import type { FastifyRequest } from 'fastify';

/**
 * A service as one request uses it: built over the request's own transaction when it has one (a
 * write sent with an Idempotency-Key), else the one over the pool. A route plugin is handed these
 * and asks for the service of the request it answers: the transaction is passed, not looked up.
 */
export type PerRequest<T> = (request: FastifyRequest) => T;
