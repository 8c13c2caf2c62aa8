/** Explicit opt-out phrases; none of them can be part of routing talk about stops. */
const STOP_PHRASES: readonly RegExp[] = [
  /\bun-?subscribe\b/,
  /\bopt(?:[\s-])?out\b/,
  /\b(?:remove|delete|take)\s+(?:me|us|my\s+\w+|our\s+\w+|this\s+\w+)\s+(?:off|from|out of)\s+(?:\w+\s+){0,2}(?:list|lists|emails?|texts?|mailing|distribution|contacts?|database|system)\b/,
  // "do not call before 8am" only sets calling hours, so a time word right after does not count.
  /\b(?:do not|don't|dont|never)\s+(?:call|contact|text|email|e-mail|message)\b(?!\s+(?:me\s+|us\s+)?(?:before|after|until|till|between|during|on weekends)\b)/,
  /\b(?:stop|quit|quit it with)\s+(?:calling|contacting|texting|emailing|e-mailing|messaging|sending|spamming|bothering|blowing up)\b/,
  /\bno\s+more\s+(?:e-?mails?|texts?|messages?|calls?|spam)\b/,
  /\blose\s+(?:my|our)\s+number\b/,
  // "please remove me." as a whole request, without naming the list.
  /\bremove\s+(?:me|us|my number|our number)\s*(?:please\s*)?(?:[.!]|$)/,
];

/**
 * "stop" counts only as a whole sentence ("STOP", "Stop.", "please stop", "I said stop"), so
 * "truck stop", "stop #2", "2 stops", "the second stop" and "non-stop" never opt a carrier out.
 */
const STOP_SENTENCE =
  /^(?:please\s+|i said\s+|just\s+|ok\s+)?(?:stop|remove(?:\s+(?:me|us))?)(?:\s+(?:please|now|it|all|all messages|this|already))?(?:\s+please)?$/;

/** The carrier asks not to be contacted again. */
export function asksToStopContact(text: string): boolean {
  if (STOP_PHRASES.some((pattern) => pattern.test(text))) return true;
  return (
    text
      .split(/[.!?\n;,]+/)
      // Trim only surrounding punctuation and emoji: "stop #2" must keep its "#2".
      .map((sentence) => sentence.replace(/^[^a-z0-9#]+|[^a-z0-9#]+$/g, '').replace(/\s+/g, ' '))
      .some((sentence) => STOP_SENTENCE.test(sentence))
  );
}
