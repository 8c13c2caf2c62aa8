import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts secrets the service must keep but nobody reading the database should learn (AES-256-GCM):
 * stored idempotent responses (a replayed `POST /api-keys` carries the new key) and webhook signing
 * secrets. Each use derives its own cipher key from the configured secret. `context` (the row the
 * value belongs to) is bound into each ciphertext, so a value copied to another row does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'envoy secret box', purpose, 32));
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  /** The plain value; null when it was sealed under another key or for another row. */
  open(stored: string, context: string): string | null {
    if (!SecretBox.isSealed(stored)) return null;
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      return plain.toString('utf8');
    } catch {
      return null;
    }
  }
}
