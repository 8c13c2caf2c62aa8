import { defined } from '../../lib/defined.js';
import type { CarrierMove, Persona, Style } from './carrier-model.js';
import { draw } from './draws.js';

/**
 * The words a simulated carrier writes for a move, the way dispatchers write: "2400 all in",
 * "can do 2.4k", a formal e-mail with a signature that carries its MC number and phone, texting
 * shorthand, Spanish. Written from how carriers answer load offers, not from what the agent's
 * reader understands: some of it is hard to read, as real replies are.
 */

type Words = {
  quote: ((a: Amount) => string)[];
  hold: ((a: Amount) => string)[];
  accept: ((a: Amount) => string)[];
  /** Yes to the agent's "to confirm: ...?" (with or without the amount). */
  yes: (string | ((a: Amount) => string))[];
  refuse: string[];
  pass: string[];
  stop: string[];
  question: Record<'weight' | 'commodity' | 'pickup', string>;
};

type Amount = {
  plain: string;
  comma: string;
  k: string;
  hundreds: string;
  /** "2k4" for 2,400. */
  kk: string;
  /** A range starting at the amount: "2300-2400" (not firm: the agent asks to confirm the first). */
  range: string;
  /** Spanish thousands: "2 mil 300". */
  mil: string;
};

const amountOf = (a: number): Amount => ({
  plain: String(a),
  comma: a.toLocaleString('en-US'),
  k: a % 100 === 0 ? `${(a / 1000).toFixed(1).replace(/\.0$/, '')}k` : a.toLocaleString('en-US'),
  hundreds: a % 100 === 0 && a < 10_000 ? `${a / 100} hundred` : a.toLocaleString('en-US'),
  kk:
    a % 100 === 0 && a >= 1000 && a % 1000 !== 0 ? `${Math.floor(a / 1000)}k${(a % 1000) / 100}` : String(a),
  range: `${a}-${a + 100}`,
  mil:
    a >= 1000 && a % 1000 !== 0
      ? `${Math.floor(a / 1000)} mil ${a % 1000}`
      : a >= 1000
        ? `${a / 1000} mil`
        : String(a),
});

const WORDS: Record<Style, Words> = {
  plain: {
    quote: [
      (a) => `${a.plain} all in`,
      (a) => `can do ${a.k}`,
      (a) => `$${a.comma}`,
      (a) => `we can do it for ${a.plain}`,
      (a) => `${a.plain} flat`,
      (a) => `I can do $${a.plain} all in`,
      (a) => `rate would be ${a.comma}`,
      (a) => `Hi, we have a truck. ${a.plain} all in.`,
      (a) => `somewhere around ${a.range} depending on the appointment`,
    ],
    hold: [
      (a) => `best I can do is ${a.plain}`,
      (a) => `can't go under ${a.plain}`,
      (a) => `${a.plain} is my bottom`,
    ],
    accept: [
      (a) => `ok ${a.plain} works`,
      (a) => `deal at ${a.plain}`,
      (a) => `yes we can take it at ${a.plain}`,
      (a) => `sounds good, ${a.comma} works, book it`,
    ],
    yes: ['yes confirmed, send the rate con', 'correct', (a: Amount) => `yes ${a.plain} all in`],
    refuse: [
      'no trucks',
      'no trucks available, thanks',
      'sorry, all booked up today',
      'not my lane',
      "truck's covered, thanks",
      "we're out of hours",
    ],
    pass: ["can't do it for that", 'too low for us, pass', "no thanks, can't make that work", "we'll pass"],
    stop: ['please take us off your list', 'remove me from your emails please', 'stop contacting us'],
    question: {
      weight: "what's the weight on it?",
      commodity: 'what are we hauling?',
      pickup: 'what time is pickup?',
    },
  },
  texting: {
    quote: [
      (a) => `${a.plain}`,
      (a) => `${a.k} all in`,
      (a) => `can do ${a.plain} lmk`,
      (a) => `${a.plain}$`,
      (a) => `${a.plain} n its yours`,
      (a) => `got a truck ${a.plain}`,
      (a) => `rate ${a.plain}`,
      (a) => `${a.hundreds} all in`,
      (a) => `${a.kk} lmk`,
      (a) => `${a.range} prob`,
    ],
    hold: [(a) => `${a.plain} lowest`, (a) => `cant do less than ${a.plain}`, (a) => `${a.plain} firm`],
    accept: [
      (a) => `ok bet ${a.plain}`,
      (a) => `${a.plain} works send it`,
      (a) => `yes ${a.plain}`,
      (a) => `book it ${a.plain}`,
    ],
    yes: ['yessir confirmed', 'ya', (a: Amount) => `${a.plain} yes`],
    refuse: ['no trucks sry', 'nah covered', 'booked up', 'no trk today'],
    pass: ['nah too cheap', 'pass', 'no thx'],
    stop: ['STOP', 'stop texting me', 'dont text me no more'],
    question: { weight: 'weight?', commodity: 'whats the commodity', pickup: 'pu time?' },
  },
  formal: {
    quote: [
      (a) => `Thank you for reaching out. We can cover it for $${a.comma}.00 all-in.`,
      (a) => `We have a truck available. Our rate is $${a.comma} including fuel.`,
      (a) => `We would be able to haul this for $${a.comma}.`,
    ],
    hold: [
      (a) => `Unfortunately we cannot go below $${a.comma} on this one.`,
      (a) => `Our best rate remains $${a.comma}.`,
    ],
    accept: [
      (a) => `That works for us. Please send the rate confirmation at $${a.comma}.`,
      (a) => `We accept $${a.comma}. Please send over the rate confirmation.`,
    ],
    yes: [
      'Confirmed. Please send the rate confirmation.',
      (a: Amount) => `Yes, $${a.comma} all-in is confirmed.`,
    ],
    refuse: [
      'Unfortunately we do not have capacity for this one.',
      'We have no trucks available for that pickup, thank you.',
    ],
    pass: ['Thank you, but that rate does not work for us.', 'We will have to pass at that rate.'],
    stop: ['Please remove us from your distribution list.', 'Kindly stop sending us load offers.'],
    question: {
      weight: 'Could you confirm the weight of the shipment?',
      commodity: 'Could you tell us what the commodity is?',
      pickup: 'What is the pickup appointment time?',
    },
  },
  spanish: {
    quote: [
      (a) => `Sí, tenemos camión. ${a.plain} todo incluido`,
      (a) => `Te lo hago en ${a.plain}`,
      (a) => `$${a.comma} dólares`,
      (a) => `podemos por ${a.plain}`,
      (a) => `tarifa ${a.comma} todo incluido`,
      (a) => `${a.mil} todo incluido`,
      (a) => `como ${a.mil} más o menos`,
    ],
    hold: [(a) => `lo menos es ${a.plain}`, (a) => `no puedo menos de ${a.plain}`],
    accept: [
      (a) => `ok, ${a.plain} está bien`,
      (a) => `sí, de acuerdo en ${a.plain}`,
      (a) => `va, ${a.plain}`,
    ],
    yes: ['sí, confirmado', 'correcto', (a: Amount) => `sí, ${a.mil} todo incluido`],
    refuse: ['no tenemos camiones disponibles', 'no hay camión, gracias', 'todo ocupado hoy'],
    pass: ['no, muy bajo', 'no me sale a ese precio', 'paso, gracias'],
    stop: ['por favor no me escriban más', 'quítenme de su lista por favor'],
    question: {
      weight: '¿cuánto pesa?',
      commodity: '¿qué mercancía es?',
      pickup: '¿a qué hora es la carga?',
    },
  },
};

const GREETING: Record<Style, string> = { plain: '', texting: '', formal: 'Hello,\n\n', spanish: '' };

/** The carrier's words for one move about one load; `n` keys the wording. */
export function wordsFor(seed: number, p: Persona, loadNumber: string, move: CarrierMove, n: number): string {
  const w = WORDS[p.style];
  const pick = <T>(list: readonly T[]) =>
    defined(list[Math.floor(draw(seed, 'words', p.key, loadNumber, n) * list.length)], 'a wording');
  switch (move.kind) {
    case 'quote':
      return pick(move.hold ? w.hold : w.quote)(amountOf(move.amount));
    case 'accept': {
      if (!move.confirming) return pick(w.accept)(amountOf(move.amount));
      const yes = pick(w.yes);
      return typeof yes === 'string' ? yes : yes(amountOf(move.amount));
    }
    case 'question':
      return w.question[move.topic];
    case 'refuse':
      return pick(w.refuse);
    case 'pass':
      return pick(w.pass);
    case 'stop':
      return pick(w.stop);
  }
}

/**
 * The carrier's whole message: about one load, its words; about several, a line per load it
 * answers, named as the carrier would name it ("OUT-00012: 2400 all in", "Load OUT-00012: ...").
 * A formal writer greets and signs with its company, MC number and phone.
 */
export function messageOf(
  p: Persona,
  lines: { loadNumber: string; words: string }[],
  several: boolean,
  signature: { name: string | null; mc: string | null; phone: string | null },
): string {
  const body = several
    ? lines
        .map((l) =>
          p.style === 'formal' ? `Load ${l.loadNumber}: ${l.words}` : `${l.loadNumber}: ${l.words}`,
        )
        .join('\n')
    : lines.map((l) => l.words).join('\n');
  if (p.style !== 'formal') return `${GREETING[p.style]}${body}`;
  const sign = [
    'Best regards,',
    'Dispatch',
    signature.name,
    signature.mc ? `MC# ${signature.mc}` : null,
    signature.phone ? `Tel ${signature.phone}` : null,
  ]
    .filter(Boolean)
    .join('\n');
  // A mail client quotes the agent's message under the answer.
  const quoted =
    '\n\nOn Monday, Envoy Dispatch wrote:\n> Do you have a truck for it? Reply with your rate, all in.';
  return `${GREETING.formal}${body}\n\n${sign}${quoted}`;
}
