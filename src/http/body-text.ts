import { StringDecoder } from 'node:string_decoder';
import { errorCodes, type FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** A text body in the pieces it was decoded in, in order (set by `readTextBody`). */
    textPieces?: readonly string[];
  }
}

type Payload = NodeJS.ReadableStream & { receivedEncodedLength?: number };

/** Bytes decoded at a time: about a millisecond of decoding, and a string too large to be copied young. */
const DECODE_PIECE = 1024 * 1024;

/**
 * A content-type parser for text bodies read in pieces (`request.textPieces`). The body is their
 * text as a string that links the pieces without copying them (V8 joins strings with `+` so);
 * whoever reads that string first copies it whole, once, so large bodies are read from the pieces.
 */
export async function readTextBody(request: FastifyRequest, payload: Payload): Promise<string> {
  const pieces = await readBodyPieces(request, payload);
  request.textPieces = pieces;
  return pieces.reduce((text, piece) => text + piece, '');
}

/** The text of a body `readTextBody` read, in its pieces (the body whole if another parser read it). */
export const textPiecesOf = (request: FastifyRequest, body: string): readonly string[] =>
  request.textPieces ?? [body];

/**
 * A request body read as text, as Fastify reads it for a `parseAs: 'string'` parser (the route's
 * body limit, checked against Content-Length first and then as bytes arrive; a Content-Length
 * that does not match the body refused; the same errors), but decoded a piece at a time as it
 * arrives: gathering 16 MiB and decoding it in one go held the event loop for 35-55 ms. The bytes
 * are held (outside the JavaScript heap) until DECODE_PIECE of them have come, then decoded into
 * one string (a piece): decoding each network chunk (16-64 KiB) on its own made hundreds of small strings
 * that the young-generation collector copied, again and again, until the body was complete.
 * The pieces (in order, none empty) are never joined here: copying 16 MiB into one string holds
 * the event loop for 15-50 ms on a busy machine, in one go, so large bodies are read piece by piece.
 */
export async function readBodyPieces(request: FastifyRequest, payload: Payload): Promise<string[]> {
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  await collectBody(request, payload, DECODE_PIECE, (bytes) => {
    const piece = decoder.write(bytes);
    if (piece !== '') parts.push(piece);
  });
  const rest = decoder.end();
  if (rest !== '') parts.push(rest);
  return parts;
}

/**
 * A request body's bytes, read as readBodyPieces reads them (the same limits and errors), into one
 * buffer of its own of the announced Content-Length, filled as the bytes arrive: joining 16 MiB
 * of network chunks at the end held the event loop for about 25 ms.
 */
export async function readBodyBytes(request: FastifyRequest, payload: Payload): Promise<Buffer> {
  const length = Number(request.headers['content-length']);
  const body = Buffer.allocUnsafeSlow(Number.isSafeInteger(length) && length > 0 ? length : 0);
  let filled = 0;
  await collectBody(request, payload, 0, (bytes) => {
    // Bytes past the announced length are counted by collectBody, which then refuses the body.
    filled += bytes.copy(body, filled);
  });
  return body;
}

/** Bytes read whole (readBodyBytes) as the pieces readBodyPieces would have decoded. */
export function decodePieces(bytes: Buffer): string[] {
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += DECODE_PIECE) {
    const piece = decoder.write(bytes.subarray(at, at + DECODE_PIECE));
    if (piece !== '') parts.push(piece);
  }
  const rest = decoder.end();
  if (rest !== '') parts.push(rest);
  return parts;
}

/**
 * The body's bytes handed to `flush` in order, `flushAt` bytes or more at a time (the last time,
 * whatever is left; nothing for an empty body); resolves once the whole body is read.
 */
function collectBody(
  request: FastifyRequest,
  payload: Payload,
  flushAt: number,
  flush: (bytes: Buffer) => void,
): Promise<void> {
  const limit = request.routeOptions.bodyLimit;
  const contentLength = Number(request.headers['content-length']);
  if (contentLength > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  return new Promise((resolve, reject) => {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let received = 0;
    const flushPending = () => {
      const [first] = pending;
      if (!first) return;
      flush(pending.length === 1 ? first : Buffer.concat(pending, pendingBytes));
      pending = [];
      pendingBytes = 0;
    };
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    function onData(data: Buffer | string) {
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      received += chunk.length;
      if (received > limit || (payload.receivedEncodedLength ?? 0) > limit) {
        stop();
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= flushAt) flushPending();
    }
    function onEnd(err?: Error & { statusCode?: number }) {
      stop();
      if (err) {
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        reject(err);
        return;
      }
      if (!Number.isNaN(contentLength) && (payload.receivedEncodedLength || received) !== contentLength) {
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      flushPending();
      resolve();
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}
