import { STOP_PHRASES, WRONG_CONTACT } from './reply-words-contact.js';
import { carrierPart } from './reply-words-thread.js';

const WRONG = new RegExp(WRONG_CONTACT.join('|'));

/**
 * "stop" counts only as a whole sentence ("STOP", "Stop.", "please stop", "I said stop"), so
 * "truck stop", "stop #2", "2 stops", "the second stop" and "non-stop" never opt a carrier out.
 */
const STOP_SENTENCE =
  /^(?:please\s+|pls\s+|plz\s+|i said\s+|just\s+|ok\s+)?(?:stop|remove(?:\s+(?:me|us))?|alto|basta)(?:\s+(?:please|pls|now|it|all|all messages|this|already|por favor|porfa|ya))?(?:\s+please)?$/;

/** The carrier asks not to be contacted again, or says we wrote to the wrong contact. */
export function asksToStopContact(reply: string): boolean {
  const text = carrierPart(reply);
  if (STOP_PHRASES.some((pattern) => pattern.test(text)) || WRONG.test(text)) return true;
  return (
    text
      .split(/[.!?\n;,]+/)
      // Trim only surrounding punctuation and emoji: "stop #2" must keep its "#2".
      .map((sentence) => sentence.replace(/^[^a-z0-9#]+|[^a-z0-9#]+$/g, '').replace(/\s+/g, ' '))
      .some((sentence) => STOP_SENTENCE.test(sentence))
  );
}
