import { z } from 'zod';
import type { Db, Tx } from '../../db/client.js';
import { claimReceipt, receiptOutcome, settleReceipt } from '../outreaches/index.js';
import type { Outcome } from './voice-tool-wording.js';

/** The inbound receipts' provider of the voice assistant's tool calls. */
const PROVIDER = 'vapi_tool';

const storedOutcome = z.object({
  result: z.string().optional(),
  error: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const fromText = (stored: unknown): unknown => {
  if (typeof stored !== 'string') return stored;
  try {
    return JSON.parse(stored);
  } catch {
    return null;
  }
};

/**
 * A tool call the platform may deliver more than once (a delivery it found slow is sent again, with
 * the same id), answered once. The claim of its receipt, everything the tool writes and the answer
 * it stores are one transaction, handed to the tool: it runs its statements on it, and a
 * transaction it opens becomes a savepoint. A repeat, in a row or concurrent (its claim waits on
 * the first one's until that commits), answers the stored outcome and does nothing else. A tool
 * that fails rolls it all back, its claim too: a repeat runs it again.
 */
export function answerOnce(
  db: Db,
  organizationId: string,
  key: string,
  tool: (tx: Tx) => Promise<Outcome>,
): Promise<{ outcome: Outcome; repeated: boolean }> {
  return db.transaction(async (tx) => {
    if (!(await claimReceipt(tx, PROVIDER, key, organizationId))) {
      const stored = storedOutcome.safeParse(fromText(await receiptOutcome(tx, PROVIDER, key)));
      return {
        outcome: stored.success ? stored.data : { error: 'This tool call was answered already' },
        repeated: true,
      };
    }
    const outcome = await tool(tx);
    // Kept as its JSON text: jsonb would reorder its keys, and a repeat answers it word for word.
    await settleReceipt(tx, PROVIDER, key, JSON.stringify(outcome), organizationId);
    return { outcome, repeated: false };
  });
}
