import type { FastifyInstance } from 'fastify';
import type { OutboundEmail } from '../../src/integrations/email/email-channel.js';
import type { PlaceCallRequest } from '../../src/integrations/voice/voice-provider.js';
import { defined } from '../../src/lib/defined.js';
import { objectOf } from '../../src/lib/json-object.js';
import type { AgentService } from '../../src/modules/agent/agent-service.js';
import {
  type AgentSays,
  type CarrierBehaviour,
  type Channel,
  dollars,
  readAgent,
  type Talk,
} from './carrier-behaviour.js';
import type { Market, SimCarrier, SimLoad } from './market.js';
import type { LiveCall } from './market-voice.js';

const DAY = 86_400_000;
const LOAD_NUMBER = /OUT-\d{5}/g;

type Job = { at: number; seq: number; run: () => Promise<void> };

/**
 * The carriers' side of a run: what reaches a carrier (an e-mail, a WhatsApp message, a call) is
 * read and answered after the carrier's delay, through the paths real carriers' answers take: the
 * inbound e-mail webhook, the WhatsApp channel's inbound handler, the voice platform's events
 * answered by the real voice tools. Answers wait in a queue ordered by simulated time.
 */
export class MarketFloor {
  private readonly queue: Job[] = [];
  private seq = 0;
  private readonly byEmail = new Map<string, SimCarrier>();
  private readonly byPhone = new Map<string, SimCarrier>();
  private readonly byNumber = new Map<string, SimLoad>();
  readonly loadOfId = new Map<string, SimLoad>();
  private readonly talks = new Map<string, Talk & { messages: number }>();
  private readonly contacts = new Map<string, number>();
  private readonly trucksUsed = new Map<string, number>();
  private readonly booked = new Set<number>();
  /** Inbound requests the service refused (must stay 0). */
  failures: string[] = [];

  constructor(
    market: Market,
    private readonly behaviour: CarrierBehaviour,
    private readonly app: FastifyInstance,
    private readonly agent: AgentService,
    private readonly secret: string,
    private readonly now: () => number,
  ) {
    for (const c of market.carriers) {
      if (c.email) this.byEmail.set(c.email.toLowerCase(), c);
      if (c.phone) this.byPhone.set(digits(c.phone), c);
    }
    for (const l of market.loads) this.byNumber.set(l.number, l);
  }

  /** When the next answer is due, if any. */
  nextAt(): number | undefined {
    return this.queue[0]?.at;
  }

  /** Runs every answer due by `until`, in time order, each at its own time (`setClock`). */
  async runDue(until: number, setClock: (at: number) => Promise<void>) {
    while (this.queue.length && defined(this.queue[0], 'this.queue[0]').at <= until) {
      const job = defined(this.queue.shift(), 'this.queue.shift()');
      await setClock(job.at);
      await job.run();
    }
  }

  private schedule(at: number, run: () => Promise<void>) {
    const job = { at, seq: this.seq++, run };
    let i = this.queue.length;
    while (
      i > 0 &&
      (defined(this.queue[i - 1], 'this.queue[i - 1]').at > at ||
        (defined(this.queue[i - 1], 'this.queue[i - 1]').at === at &&
          defined(this.queue[i - 1], 'this.queue[i - 1]').seq > job.seq))
    )
      i--;
    this.queue.splice(i, 0, job);
  }

  private talk(c: SimCarrier, l: SimLoad) {
    const key = `${c.index}|${l.index}`;
    let t = this.talks.get(key);
    if (!t) {
      t = { quotes: [], rounds: 0, refused: false, done: false, messages: 0 };
      this.talks.set(key, t);
    }
    return t;
  }

  /** The n-th contact of this carrier about this load on this channel (0 first). */
  private contactNumber(c: SimCarrier, l: SimLoad, channel: Channel) {
    const key = `${c.index}|${l.index}|${channel}`;
    const n = this.contacts.get(key) ?? 0;
    this.contacts.set(key, n + 1);
    return n;
  }

  /** Whether the carrier still has a truck on the load's pickup day, `promised` more being spoken for. */
  private free(c: SimCarrier, l: SimLoad, promised = 0) {
    return (
      (this.trucksUsed.get(`${c.index}|${Math.floor(l.pickupAt / DAY)}`) ?? 0) + promised < c.trucksPerDay
    );
  }

  private book(c: SimCarrier, l: SimLoad) {
    if (this.booked.has(l.index)) return;
    this.booked.add(l.index);
    const key = `${c.index}|${Math.floor(l.pickupAt / DAY)}`;
    this.trucksUsed.set(key, (this.trucksUsed.get(key) ?? 0) + 1);
  }

  /**
   * What the carrier does on a message, `promised` trucks of the load's pickup day being spoken for
   * by its answers to other loads of the same message; its move and the words of its answer, or null.
   */
  private answerTo(c: SimCarrier, l: SimLoad, says: AgentSays, promised = 0) {
    const talk = this.talk(c, l);
    if (says.kind === 'booked') this.book(c, l);
    const move = this.behaviour.move(c, l, talk, says, this.free(c, l, promised));
    if (!move) return null;
    return { move, words: this.behaviour.words(c, l, move, talk.messages++) };
  }

  // ------------------------------------------------------------------------------ e-mail

  /** An e-mail the agent sent (the simulated e-mail channel hands each one here). */
  onEmail(email: OutboundEmail) {
    const c = this.byEmail.get(email.to.toLowerCase());
    // The body says what is said of each load; the subject of a message about several names them all.
    const named = this.loadsIn(email.text);
    const loads = named.length ? named : this.loadsIn(`${email.subject}\n${email.text}`);
    const l = loads[0]?.load;
    if (!c || !l) return;
    const first = !email.inReplyTo;
    if (c.badEmail) {
      if (first) this.schedule(this.now() + 2 * 60_000, () => this.bounce(email));
      return;
    }
    if (first && !this.behaviour.answers(c, l, 'email', this.contactNumber(c, l, 'email'))) return;
    const text = this.answerAll(c, loads, first);
    if (text === null) return;
    const at = this.behaviour.replyAt(c, l, 'email', this.talk(c, l).messages, this.now());
    this.schedule(at, () => this.replyByEmail(c, email, text));
  }

  private async replyByEmail(c: SimCarrier, email: OutboundEmail, text: string) {
    const hash = /\+([^@]+)@/.exec(email.replyTo)?.[1] ?? null;
    const messageId = `mkt-${this.seq++}@carrier.example`;
    await this.post('/api/v1/integrations/email/inbound', {
      From: c.email,
      FromFull: { Email: c.email, Name: 'Dispatch' },
      To: email.replyTo,
      ToFull: [{ Email: email.replyTo, Name: '', MailboxHash: hash }],
      Subject: `Re: ${email.subject}`,
      MessageID: messageId,
      Date: new Date(this.now()).toUTCString(),
      TextBody: `${text}\n\nOn ${new Date(this.now()).toUTCString()} Envoy wrote:\n> ${email.text.split('\n').join('\n> ')}`,
      Headers: [
        { Name: 'Message-ID', Value: `<${messageId}>` },
        { Name: 'In-Reply-To', Value: `<${email.messageId}>` },
        { Name: 'References', Value: `<${email.messageId}>` },
      ],
    });
  }

  private bounce(email: OutboundEmail) {
    return this.post('/api/v1/integrations/email/events', {
      RecordType: 'Bounce',
      Type: 'HardBounce',
      TypeCode: 1,
      MessageID: email.messageId,
      Email: email.to,
      Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
      Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
      BouncedAt: new Date(this.now()).toISOString(),
      Metadata: email.outreachId ? { outreach_id: email.outreachId } : {},
    });
  }

  private async post(url: string, payload: Record<string, unknown>) {
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Basic ${Buffer.from(`postmark:${this.secret}`).toString('base64')}` },
      payload,
    });
    if (res.statusCode !== 200) this.failures.push(`${url} ${res.statusCode}: ${res.body.slice(0, 200)}`);
  }

  // ---------------------------------------------------------------------------- WhatsApp

  /** A WhatsApp message the agent sent (`first`: the template that opens a conversation). */
  onWhatsApp(to: string, text: string, messageId: string, first: boolean) {
    const c = this.byPhone.get(digits(to));
    const loads = this.loadsIn(text);
    const l = loads[0]?.load;
    if (!c || !l) return;
    if (c.landline || c.deadPhone) {
      if (first) {
        this.schedule(this.now() + 60_000, async () => {
          await this.agent.onWhatsAppFailure(
            messageId,
            '131026: message undeliverable (not a WhatsApp number)',
            new Date(this.now()),
          );
        });
      }
      return;
    }
    if (first && !this.behaviour.answers(c, l, 'whatsapp', this.contactNumber(c, l, 'whatsapp'))) return;
    const reply = this.answerAll(c, loads, first);
    if (reply === null) return;
    const at = this.behaviour.replyAt(c, l, 'whatsapp', this.talk(c, l).messages, this.now());
    this.schedule(at, async () => {
      const result = await this.agent.onInboundWhatsApp({
        from: to,
        profileName: null,
        messageId: `wamid.MKT${this.seq++}`,
        contextMessageId: messageId,
        text: reply,
        receivedAt: new Date(this.now()),
      });
      if (result.status === 'ignored') this.failures.push(`whatsapp reply ignored: ${result.reason}`);
    });
  }

  // -------------------------------------------------------------------------------- calls

  /** A call the agent placed: the carrier picks up (or not) half a minute later. */
  onCall(request: PlaceCallRequest, call: LiveCall) {
    const c = this.byPhone.get(digits(request.to));
    const l = call.loadId ? this.loadOfId.get(call.loadId) : undefined;
    this.schedule(this.now() + 30_000, async () => {
      if (!c || !l || c.deadPhone) return call.end('FAILED');
      const n = this.contactNumber(c, l, 'call');
      if (!this.behaviour.answers(c, l, 'call', n)) {
        if (!this.behaviour.voicemail(c, l, n)) return call.end('NO_RESPONSE');
        await call.answer();
        return call.end('VOICEMAIL');
      }
      await call.answer();
      await this.converse(c, l, call);
      await call.end('COMPLETED');
    });
  }

  /**
   * The carrier's side of an answered call: the loads the call offers (get_load_details lists them
   * when there are several), then a negotiation on each in turn, naming its load number; a carrier
   * with one truck that day takes one of the day's loads, not each of them.
   */
  private async converse(c: SimCarrier, primary: SimLoad, call: LiveCall) {
    const details = await call.tool('get_load_details', {});
    const listed = details?.metadata?.loads;
    const postedOf = new Map<string, number | null>();
    for (const x of Array.isArray(listed) ? listed : []) {
      const o = objectOf(x);
      if (typeof o?.load_number === 'string')
        postedOf.set(o.load_number, typeof o.posted_rate === 'number' ? o.posted_rate : null);
    }
    const numbers = [...postedOf.keys()];
    const loads = numbers.length
      ? numbers.flatMap((n) => {
          const l = this.byNumber.get(n);
          return l ? [l] : [];
        })
      : [primary];
    const spoken = dollars(call.request.assistant.firstMessage);
    const promised = new Map<number, number>();
    for (const [i, l] of loads.entries()) {
      if (i > 0) this.contactNumber(c, l, 'call');
      const posted = loads.length > 1 ? postedOf.get(l.number) : details?.metadata?.posted_rate;
      const ask =
        loads.length === 1 && spoken.length
          ? defined(spoken[spoken.length - 1], 'spoken[spoken.length - 1]')
          : typeof posted === 'number'
            ? posted
            : null;
      const day = Math.floor(l.pickupAt / DAY);
      const outcome = await this.negotiateOnCall(c, l, call, ask, loads.length > 1, promised.get(day) ?? 0);
      if (outcome === 'stop') return;
      if (outcome === 'taken') promised.set(day, (promised.get(day) ?? 0) + 1);
    }
  }

  /** One load of a call, from the carrier's first answer; whether it stopped the call or took (or quoted) the load. */
  private async negotiateOnCall(
    c: SimCarrier,
    l: SimLoad,
    call: LiveCall,
    ask: number | null,
    named: boolean,
    promised: number,
  ): Promise<'stop' | 'taken' | 'none'> {
    const talk = this.talk(c, l);
    const which = named ? { load_number: l.number } : {};
    let says: AgentSays = { kind: 'first', ask };
    let quoted = false;
    for (let turn = 0; turn < 8; turn++) {
      const move = this.behaviour.move(c, l, talk, says, this.free(c, l, promised));
      if (!move) break;
      call.say('user', `${named ? `${l.number}: ` : ''}${this.behaviour.words(c, l, move, talk.messages++)}`);
      if (move.kind === 'stop') {
        await call.tool('request_stop_contact', { reason: 'asked on a call' });
        return 'stop';
      }
      if (move.kind === 'refuse' || move.kind === 'pass') break;
      quoted = true;
      const answer = await call.tool('submit_offer', { offer_amount: move.amount, ...which });
      const meta = answer?.metadata ?? {};
      if (meta.status === 'accepted') {
        this.book(c, l);
        return 'taken';
      }
      says = readAgent(answer?.result ?? '', talk.quotes, false);
      if (typeof meta.counter_offer_amount === 'number' && says.kind !== 'booked') {
        says = { kind: 'offer', amount: meta.counter_offer_amount };
      }
      if (says.kind === 'booked') {
        this.book(c, l);
        return 'taken';
      }
      if (says.kind === 'review' || says.kind === 'closed') break;
    }
    return quoted ? 'taken' : 'none';
  }

  /**
   * The carrier's answer to a message about one load or several (offered together): about one,
   * its words; about several, a line per load it answers ("OUT-00012: 2400 all in").
   */
  private answerAll(c: SimCarrier, loads: { load: SimLoad; text: string }[], first: boolean): string | null {
    const lines: string[] = [];
    // A carrier with one truck that day quotes one of the day's loads, not each of them.
    const promised = new Map<number, number>();
    for (const { load, text } of loads) {
      const day = Math.floor(load.pickupAt / DAY);
      const said = this.answerTo(
        c,
        load,
        readAgent(text, this.talk(c, load).quotes, first),
        promised.get(day) ?? 0,
      );
      if (said === null) continue;
      if (said.move.kind === 'quote' || said.move.kind === 'accept')
        promised.set(day, (promised.get(day) ?? 0) + 1);
      lines.push(loads.length > 1 ? `${load.number}: ${said.words}` : said.words);
    }
    return lines.length ? lines.join('\n') : null;
  }

  /**
   * The loads a message names, each with its part of the text (from its number to the next load's),
   * so amounts said about one load are read for that load.
   */
  private loadsIn(text: string): { load: SimLoad; text: string }[] {
    const found = [...text.matchAll(LOAD_NUMBER)].filter((m) => this.byNumber.has(m[0]));
    const distinct = found.filter((m, i) => found.findIndex((x) => x[0] === m[0]) === i);
    if (distinct.length <= 1)
      return distinct.map((m) => ({
        load: defined(this.byNumber.get(m[0]), 'this.byNumber.get(m[0])'),
        text,
      }));
    return distinct.map((m, i) => ({
      load: defined(this.byNumber.get(m[0]), 'this.byNumber.get(m[0])'),
      text: text.slice(m.index, distinct[i + 1]?.index ?? text.length),
    }));
  }
}

const digits = (phone: string) => phone.replace(/\D/g, '').replace(/^1(?=\d{10}$)/, '');
