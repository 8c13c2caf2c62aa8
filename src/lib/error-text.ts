/**
 * What a caught value says about itself, for a log line or a message. `catch` hands `unknown`:
 * anything can be thrown, so these read an Error's members and fall back on the value's text.
 */

/** The message of a thrown Error, else the thrown value as text. */
export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The name of a thrown Error (`TimeoutError`, `AbortError`, ...), else the thrown value's type. */
export const errorName = (err: unknown): string => (err instanceof Error ? err.name : typeof err);
