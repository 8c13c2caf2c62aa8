/**
 * The first steps of reading a carrier's reply: the carrier's own words only (the quoted thread
 * and the phone's sign-off cut away), one spelling of every character, and spelled-out prices as
 * digits. The later steps (reply-masks, reply-price, reply-availability, reply-questions) read
 * the text these return.
 */

/** A character no pattern matches, so a blanked number can neither match nor join its neighbours. */
export const BLANK = '\u2022';

/** Blanks the spans out, keeping every other character where it was. */
export function maskSpans(text: string, spans: ReadonlyArray<{ start: number; end: number }>): string {
  let masked = text;
  for (const { start, end } of spans) {
    masked = masked.slice(0, start) + BLANK.repeat(end - start) + masked.slice(end);
  }
  return masked;
}

/**
 * Where the quoted thread begins: "On Mon, Mar 2, 2026 at 9:14 AM X wrote:", "El lun, 6 abr 2026
 * ... escribió:", an Outlook header block (English or Spanish), a forwarded-message marker.
 * Everything after is our own message coming back (with our numbers in it), or an older message.
 */
const THREAD_START =
  /^\s*(?:(?:on|el)\b[^\n]{0,200}(?:\n[^\n]{0,100})?\b(?:wrote|escribi[oó]):|-{2,}\s*(?:original message|mensaje original)\s*-{2,}|_{5,}|(?:from|de):\s[^\n]*\n(?:[^\n]*\n){0,3}\s*(?:sent|date|enviado|fecha):|begin forwarded message|-{2,}\s*(?:forwarded message|mensaje reenviado)\s*-{2,})/im;
/** Sign-offs the phone or mail program adds. */
const DEVICE_FOOTER = /^\s*(?:sent from|enviado desde|get outlook for)\b[^\n]*$/gim;
/** A line that closes the message: what follows is a signature (name, company, phone, address). */
const VALEDICTION =
  /^\s*(?:thanks?(?: you)?|thx|regards|best(?: regards)?|kind regards|warm regards|sincerely|cheers|respectfully|saludos(?: cordiales)?|atte\.?|atentamente|gracias|un saludo|quedo atent[oa]|quedo a sus [oó]rdenes|a sus [oó]rdenes)\s*[,.!]?\s*$/i;
/** "--" alone on a line: the mail convention for "a signature follows". */
const SIGNATURE_RULE = /^\s*--\s*$/;

/**
 * The carrier's own words: the quoted thread dropped (after its first line, and every "> " line),
 * and the signature below a closing line. Answers written between the lines of a quoted message
 * are kept, each after the load numbers (of `loadNumbers`) that the quoted line above it names,
 * so "> - PL-4821: ... \n YES - 2200" still says which load the 2200 is for.
 */
export function ownWords(text: string, loadNumbers: readonly string[] = []): string {
  const start = text.search(THREAD_START);
  const head = start >= 0 ? text.slice(0, start) : text;
  const inline = start >= 0 ? inlineAnswers(text.slice(start), loadNumbers) : [];
  const lines = head.split('\n').filter((line) => !/^\s*>/.test(line));
  const closing = lines.findIndex(
    (line, i) => i > 0 && (VALEDICTION.test(line) || SIGNATURE_RULE.test(line)),
  );
  const kept = closing > 0 ? lines.slice(0, closing) : lines;
  return [...kept, ...inline].join('\n').replace(DEVICE_FOOTER, '');
}

/** Lines written between the "> " lines of a quoted message, each after the load numbers its quoted line names. */
function inlineAnswers(thread: string, loadNumbers: readonly string[]): string[] {
  const lines = thread.split('\n');
  const quoted = (line: string) => /^\s*>/.test(line);
  const firstQuoted = lines.findIndex(quoted);
  const lastQuoted = lines.findLastIndex(quoted);
  const answers: string[] = [];
  let named = '';
  for (const [i, line] of lines.entries()) {
    if (i < firstQuoted || i > lastQuoted) continue;
    if (quoted(line)) {
      if (!/^[\s>]*$/.test(line)) named = loadNumbers.filter((n) => n && line.includes(n)).join(' ');
    } else if (line.trim()) answers.push(`${named} ${line.trim()}`.trim());
  }
  return answers;
}

/** Lower case and plain ASCII punctuation so the patterns need only one spelling. Newlines stay. */
export function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014\u2212]/g, '-')
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .trim();
}

/** The reply cut into sentences (with where each starts), for the rules that read one at a time. */
export function sentencesOf(text: string): Array<{ text: string; start: number; question: boolean }> {
  const out: Array<{ text: string; start: number; question: boolean }> = [];
  for (const match of text.matchAll(/(?:[^.!?\n]|\.(?=\d))+[.!?]*/g)) {
    const raw = match[0];
    if (!raw.trim()) continue;
    out.push({ text: raw, start: match.index, question: raw.includes('?') });
  }
  return out;
}
