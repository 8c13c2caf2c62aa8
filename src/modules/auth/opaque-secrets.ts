import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;

export const REFRESH_TOKEN_PREFIX = 'envoy_rt_';
export const INVITATION_TOKEN_PREFIX = 'envoy_inv_';

/** `prefix` + 40 base62 characters (about 238 bits), drawn without modulo bias. */
export function generateSecret(prefix: string): string {
  let out = '';
  while (out.length < SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248 && out.length < SECRET_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return prefix + out;
}

/** Whether `secret` has the shape `generateSecret(prefix)` gives: others are refused unhashed. */
export const isSecretOf = (prefix: string, secret: string) =>
  secret.length === prefix.length + SECRET_LENGTH &&
  secret.startsWith(prefix) &&
  /^[0-9A-Za-z]+$/.test(secret.slice(prefix.length));

/** What is stored of a secret: its SHA-256, hex. The secret is random, so no salt or slow hash. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
