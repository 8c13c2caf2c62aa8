import { deserialize } from 'node:v8';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { Piscina } from 'piscina';
import { AppError, serviceUnavailable } from '../domain/errors.js';
import { cooperative } from '../lib/yielding.js';
import { decodePieces, readBodyBytes, readTextBody } from './body-text.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's large bodies are read and their items checked in a body worker (BodyWorkers):
     * the member of its JSON body that holds the items (a CSV upload's kind is its parser's).
     */
    bodyWorker?: 'loads' | 'carriers';
  }
  interface FastifyRequest {
    /** The items a body worker checked, or the refusal it found (read with `checkedItemsOf`). */
    checkedItems?: CheckedItems | AppError;
    /** The body's canonical JSON when a body worker built it (idempotency fingerprints). */
    canonicalBody?: string;
  }
}

/** Which body a route takes: the member of a JSON batch its items are in, or a carrier CSV upload. */
export type BodyKind = 'loads' | 'carriers' | 'carriers-csv';

export interface BodyTask {
  kind: BodyKind;
  bytes: Uint8Array;
  /** Also return the body's canonical JSON (the request has an idempotency key to fingerprint). */
  canonical: boolean;
}

/** An AppError as it crosses threads. */
export interface Refusal {
  statusCode: number;
  code: string;
  message: string;
  param: string | null;
  options: AppError['options'];
}

export type BodyResult =
  | { outcome: 'fallback'; bytes: Uint8Array }
  | { outcome: 'refused'; refusal: Refusal; body: unknown; canonical: string | null }
  | {
      outcome: 'checked';
      /** The body as the route's schema sees it, its items replaced by empty objects. */
      body: unknown;
      canonical: string | null;
      /** The serialized failed items, then the valid ones, PART_ITEMS a part. */
      failed: Uint8Array;
      valid: Uint8Array[];
    };

const isLarge = (request: FastifyRequest) => Number(request.headers['content-length']) >= WORKER_BODY;

/** A batch's items once checked: an outcome for each failed one, and the valid ones, in order. */
export interface CheckedItems {
  failed: unknown[];
  valid: unknown[];
}

/** Bodies from this size on go to a body worker (when the route has one). */
export const WORKER_BODY = 256 * 1024;

// Under tsx (tests, benchmarks) this module is TypeScript, and so is the worker it starts.
const workerFile = new URL(
  `../body-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/**
 * When a large body goes to a worker: `shared`, only when the thread serving requests has served
 * other requests in the last SHARED_WINDOW_MS (a worker costs more CPU in all, the items being
 * serialized back, and pays only when others are waiting for the thread); `always`, every one.
 */
export type BodyWorkerUse = 'shared' | 'always';

export interface BodyWorkersOptions {
  /** 0: no pool, and the routes read their bodies on the main thread (cooperative-json.ts). */
  threads: number;
  use: BodyWorkerUse;
  log: FastifyBaseLogger;
  /** The worker's entry (a test points it elsewhere). */
  file?: URL;
  /** Milliseconds on a monotonic clock (a test sets its own). */
  now?: () => number;
}

/** How recently another request must have been served for a large body to go to a worker. */
export const SHARED_WINDOW_MS = 1000;

/**
 * A pool of worker threads that read a large batch body (its bytes, handed over without a copy),
 * parse it and check each item against its schema, so that the thread serving requests is not
 * held for the tens of milliseconds a thousand loads take to validate. The items come back
 * serialized in parts of a hundred, each read back in a turn of its own.
 *
 * Threads start on the first large body and stop after a minute idle.
 */
export class BodyWorkers {
  private readonly pool: Piscina<BodyTask, BodyResult> | null;
  private readonly use: BodyWorkerUse;
  private readonly log: FastifyBaseLogger;
  /** Set when a thread fails outside a task (it cannot start, say): no body goes to the pool again. */
  private broken = false;
  private readonly stopped = new AbortController();
  private readonly now: () => number;
  /** When a request that is not a large body last arrived or ended (`track`). */
  private lastOtherAt = Number.NEGATIVE_INFINITY;

  constructor(options: BodyWorkersOptions) {
    const file = options.file ?? workerFile;
    this.use = options.use;
    this.log = options.log;
    this.now = options.now ?? (() => performance.now());
    this.pool =
      options.threads > 0
        ? new Piscina({
            filename: file.href,
            minThreads: 0,
            maxThreads: options.threads,
            idleTimeout: 60_000,
            execArgv: file.pathname.endsWith('.ts') ? [...process.execArgv, '--import', 'tsx'] : undefined,
          })
        : null;
    // The pool would otherwise start thread after thread, and its tasks wait for ever.
    this.pool?.on('error', (error: unknown) => {
      if (this.broken) return;
      this.broken = true;
      this.log.error({ err: error }, 'body worker thread failed: batch bodies are read on the main thread');
      this.stopped.abort();
      void this.pool?.destroy();
    });
  }

  /** Notes when `app` serves requests that are not large bodies, for the `shared` use. */
  track(app: FastifyInstance): void {
    const seen = async (request: FastifyRequest) => {
      if (!isLarge(request)) this.lastOtherAt = this.now();
    };
    app.addHook('onRequest', seen);
    app.addHook('onResponse', seen);
  }

  /** Whether this request's body goes to a worker: the route takes one and the body is large. */
  takes(request: FastifyRequest): boolean {
    return (
      this.pool !== null &&
      !this.broken &&
      request.routeOptions.config.bodyWorker !== undefined &&
      isLarge(request) &&
      (this.use === 'always' || this.now() - this.lastOtherAt < SHARED_WINDOW_MS)
    );
  }

  /**
   * The body the route's schema sees, with the checked items (or the refusal) left on the request;
   * or the body's bytes back when the main thread must read it itself (it would refuse it).
   */
  async check(
    request: FastifyRequest,
    kind: BodyKind,
    bytes: Buffer,
  ): Promise<{ body: unknown } | { bytes: Buffer }> {
    if (!this.pool) return { bytes };
    const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const task: BodyTask = {
      kind,
      bytes: owned ? bytes : Uint8Array.from(bytes),
      canonical: 'idempotency-key' in request.headers,
    };
    // The bytes move to the worker without a copy (this thread can no longer read them); a body
    // left to this thread comes back.
    let result: BodyResult;
    try {
      result = await this.pool.run(task, {
        // A Buffer's backing store is typed ArrayBufferLike; a body read from a socket is an ArrayBuffer.
        transferList: [task.bytes.buffer as ArrayBuffer],
        signal: this.stopped.signal,
      });
    } catch (error) {
      // Bytes that never left (or were copied) are read here; moved ones went with the thread.
      if (bytes.byteLength > 0) return { bytes };
      if (this.broken) throw serviceUnavailable('A batch reader stopped while reading this body; retry');
      throw error;
    }
    if (result.outcome === 'fallback')
      return { bytes: Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength) };
    if (result.canonical !== null) request.canonicalBody = result.canonical;
    if (result.outcome === 'refused') {
      const { statusCode, code, message, param, options } = result.refusal;
      request.checkedItems = new AppError(statusCode, code, message, param, options);
      return { body: result.body };
    }
    const turns = cooperative();
    const valid: unknown[] = [];
    for (const part of result.valid) {
      await turns.pause();
      for (const item of deserialize(part)) valid.push(item);
    }
    request.checkedItems = { failed: deserialize(result.failed), valid };
    request.log.debug({ kind, valid: valid.length }, 'body items checked in a worker');
    return { body: result.body };
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}

/** The items a body worker checked for this request (null when it did not); throws its refusal. */
export function checkedItemsOf(request: FastifyRequest): CheckedItems | null {
  const checked = request.checkedItems;
  if (checked instanceof AppError) throw checked;
  return checked ?? null;
}

/**
 * A content-type parser for CSV uploads of items (readTextBody's text in pieces), whose large
 * bodies go to a body worker when the route takes one; the body the route then sees is empty.
 */
export const csvItemsParser =
  (workers: BodyWorkers) =>
  async (request: FastifyRequest, payload: Parameters<typeof readTextBody>[1]): Promise<unknown> => {
    if (!workers.takes(request)) return readTextBody(request, payload);
    const checked = await workers.check(request, 'carriers-csv', await readBodyBytes(request, payload));
    if ('body' in checked) return checked.body;
    const pieces = decodePieces(checked.bytes);
    request.textPieces = pieces;
    return pieces.reduce((text, piece) => text + piece, '');
  };
