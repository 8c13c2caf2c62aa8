declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route accepts an Idempotency-Key header (spec: Limits, Idempotency). */
    idempotent?: boolean;
  }
}

export {};
