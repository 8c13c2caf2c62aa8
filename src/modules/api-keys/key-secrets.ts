import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
export const KEY_PREFIX = 'envoy_sk_';
export const KEY_FORMAT = /^envoy_sk_[0-9A-Za-z]{40}$/;

/** `envoy_sk_` + 40 base62 characters (about 238 bits), drawn without modulo bias. */
export function generateKeySecret(): string {
  let out = '';
  while (out.length < SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248 && out.length < SECRET_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return KEY_PREFIX + out;
}

export const hashKeySecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
