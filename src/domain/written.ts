/**
 * A write's result as read back after its commit, or, when the write committed and that read
 * failed, what is known: the id, whether it was a creation, and the read's error. The route answers
 * the first with the resource and the second with a write receipt (202), never with a 503 that
 * would have the client send the write again.
 */
export type Written<T> = { created: boolean; result: T } | { created: boolean; id: string; unread: unknown };

/**
 * Reads back what a committed write of `id` produced. A failure of the read (the connection lost
 * after the commit, a statement cut off) becomes the `unread` half of Written: the write stands.
 */
export async function readBack<T>(
  written: { created: boolean; id: string },
  read: () => Promise<T>,
): Promise<Written<T>> {
  try {
    return { created: written.created, result: await read() };
  } catch (unread) {
    return { ...written, unread };
  }
}

/** The result of a Written, or the read's error thrown: for callers that need the resource itself. */
export function resultOf<T>(written: Written<T>): T {
  if ('unread' in written) throw written.unread;
  return written.result;
}

/** A Written with its result turned into another shape (the receipt half passes as it is). */
export function mapWritten<T, U>(written: Written<T>, shape: (result: T) => U): Written<U> {
  return 'unread' in written ? written : { created: written.created, result: shape(written.result) };
}
