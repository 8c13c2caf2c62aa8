import type { AgentSays } from './carrier-model.js';

/**
 * How a simulated carrier reads the agent's messages. Deliberately loose about wording, as a
 * person is, so a new phrasing (a chat model's draft, "the best we can do is $X") reads the same:
 * the last dollar amount that is not the carrier's own is the agent's offer.
 */

const DOLLARS = /\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?/g;

/** The dollar amounts of a text, in order. */
export function dollars(text: string): number[] {
  return [...text.matchAll(DOLLARS)].map((m) => Number((m[1] ?? '').replace(/,/g, '')));
}

/** What the agent said about one load, from the text about it; `own`: the carrier's quotes so far. */
export function readAgent(text: string, own: readonly number[], first: boolean): AgentSays {
  const t = text.toLowerCase();
  const amounts = dollars(text);
  if (first) return { kind: 'first', ask: amounts.length ? (amounts[amounts.length - 1] ?? null) : null };
  if (/\bbooked\b/.test(t) && !/not booked/.test(t)) return { kind: 'booked' };
  if (/already covered|been covered|not contact you again|removed you|no longer available/.test(t)) {
    return { kind: 'closed' };
  }
  if (/\bconfirm(?!ation)/.test(t) && /\?/.test(t)) {
    return { kind: 'confirm', amount: amounts.length ? (amounts[amounts.length - 1] ?? null) : null };
  }
  if (/rep will|for review|pending/.test(t)) return { kind: 'review' };
  const theirs = amounts.filter((a) => !own.includes(a));
  if (
    /more than we can do|we will pass|we'll pass|can't go that high|cannot go that high/.test(t) &&
    !theirs.length
  ) {
    return { kind: 'declined' };
  }
  const latest = theirs.at(-1);
  if (latest !== undefined) return { kind: 'offer', amount: latest };
  if (/what rate|your rate|rate would you need|at what rate/.test(t)) return { kind: 'ask_rate' };
  // An answer to the carrier's question, or thanks: nothing to act on unless it had asked.
  return { kind: 'answered' };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The load numbers a message of the agent names, in order: each "load X" and the lists of
 * "loads X, Y and Z" (the subject of a message about several, "which of loads X, Y ..."). Only
 * candidates: the caller keeps those that are loads.
 */
export function loadNumbersIn(text: string): string[] {
  const found: string[] = [];
  const list = /\bloads?\s+#?([A-Za-z0-9][\w-]*(?:\s*(?:,|\band\b)\s*#?[A-Za-z0-9][\w-]*)*)/gi;
  for (const m of text.matchAll(list)) {
    for (const n of (m[1] ?? '').split(/\s*(?:,|\band\b)\s*/i)) {
      const number = n.replace(/^#/, '');
      if (number && !found.includes(number)) found.push(number);
    }
  }
  return found;
}

/**
 * The text of a message about each of `numbers`, line by line: a line naming loads is about each
 * of them; a line naming none is about the message's only load (when it names one), else about
 * nothing. Lines of the quoted thread ("> ...") are not read.
 */
export function partsByLoad(text: string, numbers: readonly string[]): Map<string, string> {
  const parts = new Map<string, string[]>();
  const named = (line: string) =>
    numbers.filter((n) => new RegExp(`(?<![A-Za-z0-9-])${escapeRegExp(n)}(?![A-Za-z0-9-])`, 'i').test(line));
  const lines = text.split('\n').filter((l) => !l.trimStart().startsWith('>'));
  const all = numbers.filter((n) => lines.some((l) => named(l).includes(n)));
  for (const line of lines) {
    const about = named(line);
    const targets = about.length ? about : all.length === 1 ? all : [];
    for (const n of targets) parts.set(n, [...(parts.get(n) ?? []), line]);
  }
  return new Map([...parts].map(([n, ls]) => [n, ls.join('\n')]));
}
