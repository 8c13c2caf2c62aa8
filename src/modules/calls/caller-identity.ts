import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { callerVerifications } from './calls-tables.js';

/** How long a one-time code is good for, and how many tries it allows. */
export const CODE_TTL_MINUTES = 10;
export const CODE_MAX_ATTEMPTS = 3;

/** Sends a one-time code to a carrier's census e-mail or phone (the composition picks the channel). */
export type CodeSender = (to: { email: string | null; phone: string | null }, text: string) => Promise<void>;

const hash = (callId: string, code: string) => createHash('sha256').update(`${callId}:${code}`).digest('hex');

const mask = (to: { email: string | null; phone: string | null }) =>
  to.email ? to.email.replace(/^(.).*(@.*)$/, '$1***$2') : `a phone ending in ${(to.phone ?? '').slice(-4)}`;

/** A new code for the call's claimed carrier, sent; earlier codes of the call stop counting. */
export async function issueCode(
  db: DbOrTx,
  call: { id: string; organization_id: string },
  carrierId: string,
  to: { email: string | null; phone: string | null },
  send: CodeSender,
  carrierName: string,
): Promise<string> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await send(
    to,
    `Your ${carrierName} verification code for your call with us is ${code}. It expires in ${CODE_TTL_MINUTES} minutes.`,
  );
  await db
    .update(callerVerifications)
    .set({ expires_at: sql`least(${callerVerifications.expires_at}, now())` })
    .where(and(eq(callerVerifications.call_id, call.id), sql`${callerVerifications.verified_at} IS NULL`));
  await db.insert(callerVerifications).values({
    id: newId('verification'),
    organization_id: call.organization_id,
    call_id: call.id,
    carrier_id: carrierId,
    code_hash: hash(call.id, code),
    sent_to: mask(to),
    expires_at: sql`now() + ${`${CODE_TTL_MINUTES} minutes`}::interval`,
  });
  return mask(to);
}

export type CodeCheck =
  | { ok: true; carrierId: string }
  | { ok: false; why: 'none' | 'expired' | 'too_many_attempts' | 'wrong'; attemptsLeft: number };

/** Checks a code said on the call against its latest one; a wrong code uses an attempt. */
export function checkCode(db: Db, callId: string, code: string): Promise<CodeCheck> {
  return db.transaction((tx) => checkIn(tx, callId, code));
}

async function checkIn(tx: DbOrTx, callId: string, code: string): Promise<CodeCheck> {
  const [latest] = await tx
    .select({
      id: callerVerifications.id,
      carrier_id: callerVerifications.carrier_id,
      code_hash: callerVerifications.code_hash,
      attempts: callerVerifications.attempts,
      expired: sql<boolean>`${callerVerifications.expires_at} <= now()`,
    })
    .from(callerVerifications)
    .where(and(eq(callerVerifications.call_id, callId), sql`${callerVerifications.verified_at} IS NULL`))
    .orderBy(desc(callerVerifications.created_at))
    .limit(1)
    .for('update');
  if (!latest) return { ok: false, why: 'none', attemptsLeft: 0 };
  if (latest.attempts >= CODE_MAX_ATTEMPTS) return { ok: false, why: 'too_many_attempts', attemptsLeft: 0 };
  if (latest.expired) return { ok: false, why: 'expired', attemptsLeft: 0 };
  const given = Buffer.from(hash(callId, code.replace(/\D/g, '')));
  if (timingSafeEqual(given, Buffer.from(latest.code_hash))) {
    await tx
      .update(callerVerifications)
      .set({ verified_at: sql`now()` })
      .where(eq(callerVerifications.id, latest.id));
    return { ok: true, carrierId: latest.carrier_id };
  }
  await tx
    .update(callerVerifications)
    .set({ attempts: sql`${callerVerifications.attempts} + 1` })
    .where(eq(callerVerifications.id, latest.id));
  const left = CODE_MAX_ATTEMPTS - latest.attempts - 1;
  return left > 0
    ? { ok: false, why: 'wrong', attemptsLeft: left }
    : { ok: false, why: 'too_many_attempts', attemptsLeft: 0 };
}
