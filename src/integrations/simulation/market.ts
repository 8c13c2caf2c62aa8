// The simulated market: the carriers every in-process provider plays.
// Size: one class holding the market's memory (talks, trucks, contacts) and its two written
// channels; calls are in market-calls.ts.

import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { objectOf } from '../../lib/json-object.js';
import type { OutboundEmail } from '../email/email-channel.js';
import { loadNumbersIn, partsByLoad, readAgent } from './agent-reading.js';
import {
  type AgentSays,
  type CarrierModel,
  type Channel,
  type MarketLoad,
  newTalk,
  type Persona,
  type Talk,
} from './carrier-model.js';
import { messageOf, wordsFor } from './carrier-words.js';
import { draw } from './draws.js';

/** A carrier as the market meets it: who it is to the organization that contacted it. */
export interface MarketCarrier {
  id: string | null;
  organizationId: string;
  /** Its identity across organizations (the MC number, else the carrier's id): keys its habits. */
  key: string;
  name: string | null;
  mc: string | null;
  homeState: string | null;
  phone: string | null;
  email: string | null;
}

/** What the market looks up: who a message went to, and the loads it names (the product's port). */
export interface MarketDirectory {
  /** The carrier an outreach of the agent went to. */
  carrierOfOutreach(outreachId: string): Promise<MarketCarrier | null>;
  /** The organization's carrier at this phone number (a call's callee), if it has one. */
  carrierAtPhone(organizationId: string, phone: string): Promise<MarketCarrier | null>;
  /** The organization's loads with these numbers, with the carrier's tier on each one's lane. */
  loads(organizationId: string, carrierId: string | null, numbers: readonly string[]): Promise<MarketLoad[]>;
}

/** What the market said, for a benchmark to check what the agent read against it. */
export type MarketEvent =
  | {
      kind: 'said';
      carrierKey: string;
      loadNumber: string;
      channel: Channel;
      move: string;
      amount: number | null;
      at: number;
    }
  | { kind: 'refused'; detail: string; at: number };

/** Where the carriers' answers go, shaped as each provider's webhook delivers them. */
export interface MarketSinks {
  /** A Postmark inbound or bounce payload, to the inbound e-mail webhook's handler. */
  email?: (payload: Record<string, unknown>) => Promise<unknown>;
  /** A WhatsApp Cloud API webhook payload, to the WhatsApp webhook's handler. */
  whatsapp?: (payload: Record<string, unknown>) => Promise<unknown>;
}

const DAY = 86_400_000;

/**
 * The carriers of the simulation: what reaches a carrier (an e-mail, a WhatsApp message, a call)
 * is read and answered after the carrier's delay on the product clock, through the paths real
 * carriers' answers take (the inbound e-mail webhook's handler, the WhatsApp webhook's handler,
 * the voice platform's tool calls). Its memory (who quoted what, trucks spoken for) lives in the
 * process that sent the message.
 */
export class SimulatedMarket {
  private readonly talks = new Map<string, Talk>();
  private readonly contacts = new Map<string, number>();
  private readonly trucksUsed = new Map<string, number>();
  private readonly booked = new Set<string>();
  private readonly cancels = new Set<() => void>();
  private readonly inflight = new Set<Promise<void>>();
  private sinks: MarketSinks = {};
  private closed = false;
  /** Told of every carrier move and every refused answer (the outcomes benchmark listens). */
  observer: ((e: MarketEvent) => void) | null = null;

  constructor(
    readonly model: CarrierModel,
    readonly clock: Clock,
    readonly directory: MarketDirectory,
  ) {}

  get silent() {
    return this.model.profile === 'silent';
  }

  attach(sinks: MarketSinks) {
    this.sinks = { ...this.sinks, ...sinks };
  }

  persona(carrier: MarketCarrier): Persona {
    return this.model.persona(carrier.key);
  }

  /** Runs `work` after `delayMs` on the product clock; close() cancels it or waits for it. */
  later(delayMs: number, work: () => Promise<unknown>) {
    if (this.closed) return;
    const cancel = this.clock.after(delayMs, () => {
      this.cancels.delete(cancel);
      if (this.closed) return;
      const done: Promise<void> = work()
        .then(() => undefined)
        .catch((err) => {
          // A call hung up or transferred while its carrier spoke ends its script; nothing failed.
          if (err instanceof Error && err.message === 'the call ended') return;
          this.refused(`simulated carrier: ${err instanceof Error ? err.message : String(err)}`);
        })
        .finally(() => this.inflight.delete(done));
      this.inflight.add(done);
      return done;
    });
    this.cancels.add(cancel);
  }

  async close() {
    this.closed = true;
    for (const cancel of this.cancels) cancel();
    this.cancels.clear();
    await Promise.all(this.inflight);
  }

  refused(detail: string) {
    this.observer?.({ kind: 'refused', detail, at: this.clock.ms() });
  }

  talk(carrier: MarketCarrier, l: MarketLoad): Talk {
    const key = `${carrier.organizationId}|${carrier.key}|${l.number}`;
    let t = this.talks.get(key);
    if (!t) {
      t = newTalk();
      this.talks.set(key, t);
    }
    return t;
  }

  /** The n-th contact of this carrier about this load on this channel (0 first). */
  contactNumber(carrier: MarketCarrier, l: MarketLoad, channel: Channel) {
    const key = `${carrier.organizationId}|${carrier.key}|${l.number}|${channel}`;
    const n = this.contacts.get(key) ?? 0;
    this.contacts.set(key, n + 1);
    return n;
  }

  /** Whether the carrier still has a truck on the load's pickup day, `promised` more being spoken for. */
  free(p: Persona, l: MarketLoad, promised = 0) {
    const day = Math.floor((l.pickupAt ?? this.clock.ms()) / DAY);
    return (this.trucksUsed.get(`${p.key}|${day}`) ?? 0) + promised < p.trucksPerDay;
  }

  /** The agent booked the load with the carrier: one of its trucks that day is taken. */
  book(carrier: MarketCarrier, l: MarketLoad) {
    const loadKey = `${carrier.organizationId}|${l.number}`;
    if (this.booked.has(loadKey)) return;
    this.booked.add(loadKey);
    const key = `${carrier.key}|${Math.floor((l.pickupAt ?? this.clock.ms()) / DAY)}`;
    this.trucksUsed.set(key, (this.trucksUsed.get(key) ?? 0) + 1);
  }

  /** The carrier's move on what the agent said about one load, and its words; null: it says nothing. */
  answerTo(
    carrier: MarketCarrier,
    l: MarketLoad,
    says: AgentSays,
    channel: Channel,
    promised = 0,
    willing = false,
  ) {
    const own = this.persona(carrier);
    const p = willing ? { ...own, willing, asksToStop: false, asksFirst: false } : own;
    const talk = this.talk(carrier, l);
    if (says.kind === 'booked') this.book(carrier, l);
    const move = this.model.move(p, l, talk, says, willing || this.free(p, l, promised));
    if (!move) return null;
    this.observer?.({
      kind: 'said',
      carrierKey: p.key,
      loadNumber: l.number,
      channel,
      move: move.kind,
      amount: 'amount' in move ? move.amount : null,
      at: this.clock.ms(),
    });
    return { move, words: wordsFor(this.model.seed, p, l.number, move, talk.messages++) };
  }

  /**
   * The carrier's answer to a message about one load or several: the agent's words about each
   * load read from the message's lines; a carrier with one truck that day quotes one of the
   * day's loads, not each of them.
   */
  answerAll(carrier: MarketCarrier, loads: MarketLoad[], text: string, first: boolean, channel: Channel) {
    const p = this.persona(carrier);
    const parts = partsByLoad(
      text,
      loads.map((l) => l.number),
    );
    const lines: { loadNumber: string; words: string }[] = [];
    const promised = new Map<number, number>();
    for (const l of this.inPreferredOrder(carrier, loads)) {
      const part = parts.get(l.number);
      if (part === undefined) continue;
      const day = Math.floor((l.pickupAt ?? 0) / DAY);
      const said = this.answerTo(
        carrier,
        l,
        readAgent(part, this.talk(carrier, l).quotes, first),
        channel,
        promised.get(day) ?? 0,
      );
      if (said === null) continue;
      if (said.move.kind === 'quote' || said.move.kind === 'accept')
        promised.set(day, (promised.get(day) ?? 0) + 1);
      lines.push({ loadNumber: l.number, words: said.words });
      if (said.move.kind === 'stop') break;
    }
    if (!lines.length) return null;
    return messageOf(p, lines, loads.length > 1, {
      name: carrier.name,
      mc: carrier.mc,
      phone: carrier.phone,
    });
  }

  /**
   * The loads in the order the carrier weighs them (its own taste, a keyed draw): a carrier with one
   * truck that day takes the first it likes, not the first the message lists.
   */
  inPreferredOrder(carrier: MarketCarrier, loads: readonly MarketLoad[]): MarketLoad[] {
    const key = (l: MarketLoad) => draw(this.model.seed, 'prefers', carrier.key, l.number);
    return [...loads].sort((a, b) => key(a) - key(b));
  }

  /** The loads a message of the agent names, as the market knows them. */
  async loadsNamed(carrier: MarketCarrier, text: string): Promise<MarketLoad[]> {
    const candidates = loadNumbersIn(text);
    if (!candidates.length) return [];
    const found = await this.directory.loads(carrier.organizationId, carrier.id, candidates);
    const order = new Map(candidates.map((n, i) => [n.toLowerCase(), i]));
    return found.sort(
      (a, b) => (order.get(a.number.toLowerCase()) ?? 0) - (order.get(b.number.toLowerCase()) ?? 0),
    );
  }

  // ------------------------------------------------------------------------------ e-mail

  /** An e-mail the product sent; only an outreach goes to a carrier, so only one is answered. */
  onEmail(email: OutboundEmail) {
    if (this.silent || !email.outreachId) return;
    const outreachId = email.outreachId;
    this.later(0, async () => {
      const carrier = await this.directory.carrierOfOutreach(outreachId);
      if (!carrier) return;
      const loads = await this.loadsNamed(carrier, `${email.subject}\n${email.text}`);
      const lead = loads[0];
      if (!lead) return;
      const p = this.persona(carrier);
      const first = !email.inReplyTo;
      if (p.badEmail) {
        if (first) this.later(2 * 60_000, () => this.bounce(email));
        return;
      }
      if (first && !this.model.answers(p, lead, 'email', this.contactNumber(carrier, lead, 'email'))) return;
      const text = this.answerAll(carrier, loads, email.text, first, 'email');
      if (text === null) return;
      const at = this.model.replyAt(
        p,
        carrier.homeState,
        lead,
        'email',
        this.talk(carrier, lead).messages,
        this.clock.ms(),
      );
      this.later(at - this.clock.ms(), () => this.replyByEmail(carrier, email, text));
    });
  }

  private async replyByEmail(carrier: MarketCarrier, email: OutboundEmail, text: string) {
    const messageId = `sim-${randomUUID()}@carrier.example`;
    const hash = /\+([^@]+)@/.exec(email.replyTo)?.[1] ?? '';
    const sent = this.clock.now();
    const quoted = email.text
      .split('\n')
      .map((l) => `> ${l}`)
      .join('\n');
    await this.deliver('email', {
      From: email.to,
      FromName: carrier.name ?? '',
      FromFull: { Email: email.to, Name: carrier.name ?? '', MailboxHash: '' },
      To: email.replyTo,
      ToFull: [{ Email: email.replyTo, Name: '', MailboxHash: hash }],
      Subject: `Re: ${email.subject}`,
      MessageID: messageId,
      Date: sent.toUTCString(),
      MailboxHash: hash,
      TextBody: `${text}\n\nOn ${sent.toUTCString()}, ${email.from} wrote:\n${quoted}`,
      Headers: [
        { Name: 'Message-ID', Value: `<${messageId}>` },
        { Name: 'In-Reply-To', Value: `<${email.messageId}>` },
        { Name: 'References', Value: `<${email.messageId}>` },
      ],
    });
  }

  private bounce(email: OutboundEmail) {
    return this.deliver('email', {
      RecordType: 'Bounce',
      Type: 'HardBounce',
      TypeCode: 1,
      MessageID: email.messageId,
      Email: email.to,
      Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
      Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
      BouncedAt: this.clock.now().toISOString(),
      Metadata: email.outreachId ? { outreach_id: email.outreachId } : {},
    });
  }

  // ---------------------------------------------------------------------------- WhatsApp

  /** A WhatsApp message the product sent to a carrier (`first`: the template that opens a conversation). */
  onWhatsApp(to: string, text: string, messageId: string, first: boolean, outreachId: string | null) {
    if (this.silent || !outreachId) return;
    this.later(0, async () => {
      const carrier = await this.directory.carrierOfOutreach(outreachId);
      if (!carrier) return;
      const loads = await this.loadsNamed(carrier, text);
      const lead = loads[0];
      if (!lead) return;
      const p = this.persona(carrier);
      if (p.landline || p.deadPhone) {
        if (first) this.later(60_000, () => this.whatsAppFailed(to, messageId));
        return;
      }
      if (first && !this.model.answers(p, lead, 'whatsapp', this.contactNumber(carrier, lead, 'whatsapp')))
        return;
      const reply = this.answerAll(carrier, loads, text, first, 'whatsapp');
      if (reply === null) return;
      const at = this.model.replyAt(
        p,
        carrier.homeState,
        lead,
        'whatsapp',
        this.talk(carrier, lead).messages,
        this.clock.ms(),
      );
      this.later(at - this.clock.ms(), () =>
        this.deliver(
          'whatsapp',
          whatsAppPayload({
            from: to.replace(/\D/g, ''),
            id: `wamid.SIMIN${randomUUID().replace(/-/g, '')}`,
            timestamp: String(Math.floor(this.clock.ms() / 1000)),
            type: 'text',
            text: { body: reply },
            context: { from: 'simulated', id: messageId },
          }),
        ),
      );
    });
  }

  private whatsAppFailed(to: string, messageId: string) {
    return this.deliver(
      'whatsapp',
      whatsAppWebhook({
        statuses: [
          {
            id: messageId,
            status: 'failed',
            timestamp: String(Math.floor(this.clock.ms() / 1000)),
            recipient_id: to.replace(/\D/g, ''),
            errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' }],
          },
        ],
      }),
    );
  }

  private async deliver(channel: 'email' | 'whatsapp', payload: Record<string, unknown>) {
    const sink = this.sinks[channel];
    if (!sink) return;
    const result = objectOf(await sink(payload));
    const results = Array.isArray(result?.results) ? result.results.map(objectOf) : [result];
    for (const r of results) {
      if (r?.status === 'ignored' && r.record_type !== 'Bounce') {
        this.refused(`${channel} answer ignored: ${String(r.reason)}`);
      }
    }
  }
}

/** A WhatsApp Cloud API webhook delivery carrying `value` (messages or statuses). */
function whatsAppWebhook(value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'simulated',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000000', phone_number_id: 'simulated' },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

/** A webhook delivery carrying one inbound message. */
const whatsAppPayload = (message: Record<string, unknown>) =>
  whatsAppWebhook({ contacts: [{ profile: { name: '' }, wa_id: message.from }], messages: [message] });
