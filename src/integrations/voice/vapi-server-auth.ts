import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How Vapi authenticates the server messages it sends us: a Custom Credential referenced by
 * `server.credentialId`, of one of two kinds (the SDK's HmacAuthenticationPlan and
 * BearerAuthenticationPlan):
 * - `hmac`: a signature of `payloadFormat` (default `{timestamp}.{body}`) in `signatureHeader`
 *   (default `x-signature`), with the time it was made in `timestampHeader` (default
 *   `x-timestamp`), hex or base64, sha256/sha512/sha1;
 * - `bearer`: the token in a header (default `Authorization`, with or without `Bearer `).
 */
export type VapiServerAuth =
  | {
      scheme: 'hmac';
      secret: string;
      algorithm: 'sha256' | 'sha512' | 'sha1';
      signatureHeader: string;
      timestampHeader: string;
      encoding: 'hex' | 'base64';
      payloadFormat: string;
      /** How far the signed timestamp may be from our clock (replay window). */
      toleranceSeconds: number;
    }
  | { scheme: 'bearer'; secret: string; header: string };

type Headers = Record<string, string | string[] | undefined>;

const one = (headers: Headers, name: string) => {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
};

/** A timestamp header as epoch milliseconds: seconds or milliseconds since the epoch, or ISO 8601. */
export function timestampMs(raw: string): number | null {
  const text = raw.trim();
  if (/^\d{1,16}(\.\d+)?$/.test(text)) {
    const n = Number(text);
    return n > 1e11 ? n : n * 1000;
  }
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? null : parsed;
}

/** Signs like Vapi does; used by tests and by anyone replaying a message by hand. */
export function vapiSignature(
  auth: Extract<VapiServerAuth, { scheme: 'hmac' }>,
  rawBody: string,
  timestamp: string,
): string {
  const payload = auth.payloadFormat.replaceAll('{timestamp}', timestamp).replaceAll('{body}', rawBody);
  return createHmac(auth.algorithm, auth.secret).update(payload, 'utf8').digest(auth.encoding);
}

/**
 * Whether a server message comes from Vapi under our credential. Returns the reason it does not,
 * or null when it does. The raw body is checked before anything is parsed.
 */
export function vapiAuthFailure(
  auth: VapiServerAuth,
  headers: Headers,
  rawBody: string,
  now = Date.now(),
): string | null {
  if (auth.scheme === 'bearer') {
    const value = one(headers, auth.header);
    if (!value) return `the ${auth.header} header is missing`;
    const token = value.replace(/^Bearer\s+/i, '');
    return sameText(token, auth.secret) ? null : `the ${auth.header} token is wrong`;
  }
  const signature = one(headers, auth.signatureHeader);
  if (!signature) return `the ${auth.signatureHeader} header is missing`;
  const usesTimestamp = auth.payloadFormat.includes('{timestamp}');
  const timestamp = one(headers, auth.timestampHeader) ?? '';
  if (usesTimestamp) {
    const at = timestampMs(timestamp);
    if (at === null) return `the ${auth.timestampHeader} header is missing or not a time`;
    if (Math.abs(now - at) > auth.toleranceSeconds * 1000) {
      return `the ${auth.timestampHeader} time is outside the ${auth.toleranceSeconds} s window`;
    }
  }
  // A prefix such as `sha256=` or `v1=` is the sender's decoration, not part of the digest.
  const given = signature.trim().replace(/^(sha1|sha256|sha512|v1)[=,]/i, '');
  return sameText(given, vapiSignature(auth, rawBody, timestamp)) ? null : 'the signature does not match';
}
