import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';

// OWASP's minimum for argon2id: 19 MiB, 2 iterations, 1 lane (25-37 ms a verify here).
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => argon2.hash(password, OPTIONS);

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password. With no stored hash (unknown email) it still verifies against a dummy, so
 * an unknown email and a wrong password take about the same time.
 */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    await argon2.verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await argon2.verify(storedHash, password);
  } catch {
    return false;
  }
}
