import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { serviceUnavailable } from '../domain/errors.js';
import type { Written } from '../domain/written.js';

/**
 * The answer to a write without an Idempotency-Key that committed but whose result could not be
 * read back (the database connection was lost, or the read failed, after the commit): 202 with the
 * id and the operation, so the client knows it happened and does not send it again. A keyed write
 * reads its result back inside its own transaction, so for it the same failure is a 503 and
 * nothing was committed.
 */
export const writeReceiptSchema = z
  .object({
    id: z.string().meta({ description: 'The id of the resource written.' }),
    object: z.string().meta({ description: 'What was written, e.g. `carrier`.' }),
    operation: z.enum(['created', 'updated']),
    complete: z
      .literal(false)
      .meta({ description: 'Always false: the resource itself is not in this answer.' }),
    message: z.string(),
  })
  .meta({
    title: 'WriteReceipt',
    description:
      'The write committed, but reading its result back failed. Do not send it again: read the ' +
      'resource at `Location` (the id is also here).',
  });

export type WriteReceipt = z.output<typeof writeReceiptSchema>;

/**
 * Answers a create-or-update: 201 or 200 with the result read back; 202 with the receipt when the
 * write committed and its read-back failed (see writeReceiptSchema). `collection` is the path the
 * resource is read at, without its id.
 */
export function sendWritten<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  written: Written<T>,
  { object, collection }: { object: string; collection: string },
) {
  if (!('unread' in written)) return reply.status(written.created ? 201 : 200).send(written.result);
  const location = `${collection}/${written.id}`;
  return sendReceipt(request, reply, { object, location, ...written });
}

function sendReceipt(
  request: FastifyRequest,
  reply: FastifyReply,
  written: { object: string; id: string; created: boolean; location: string; unread: unknown },
) {
  // A keyed request's read-back runs in its transaction: that transaction is lost with it.
  if (request.idempotencyTx) throw serviceUnavailable();
  request.log.warn(
    { err: written.unread, id: written.id },
    'a committed write could not be read back; answered with its receipt',
  );
  const receipt: WriteReceipt = {
    id: written.id,
    object: written.object,
    operation: written.created ? 'created' : 'updated',
    complete: false,
    message: `The ${written.object} was ${written.created ? 'created' : 'updated'}, but reading it back failed: do not send the request again; read it at ${written.location}`,
  };
  return reply.status(202).header('location', written.location).send(receipt);
}
