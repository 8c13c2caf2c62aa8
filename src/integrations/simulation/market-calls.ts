import { objectOf } from '../../lib/json-object.js';
import type { CallStatus, PlaceCallRequest, ToolResult } from '../voice/voice-provider.js';
import { dollars, readAgent } from './agent-reading.js';
import type { AgentSays, MarketLoad } from './carrier-model.js';
import { draw } from './draws.js';
import type { MarketCarrier, SimulatedMarket } from './market.js';

/** The platform's side of one simulated call, as the market's carrier hears and speaks on it. */
export interface CallLine {
  /** Picks up: the call is in progress and the assistant says its first message. */
  answer(): Promise<void>;
  say(role: 'assistant' | 'user', content: string): void;
  /** Calls one of the assistant's tools, as the platform does when the model asks for it. */
  tool(name: string, args: Record<string, unknown>): Promise<ToolResult | null>;
  /** A pause in the conversation, on the product clock. */
  pause(ms: number): Promise<void>;
  end(status: CallStatus): Promise<void>;
}

/** The call ended (hung up, transferred) while the carrier was talking: its script stops. */
export class CallEnded extends Error {
  constructor() {
    super('the call ended');
  }
}

/** How a call was asked to go (a test's or a demo's `simulate_outcome`), when it was. */
export type ForcedOutcome = { outcome: 'completed'; stop: boolean };

const DAY = 86_400_000;
const digits = (phone: string) => phone.replace(/\D/g, '');

/**
 * A load-booking call to one of the market's carriers: it rings, then the carrier picks up (or
 * its voicemail does, or nobody), hears the loads the call offers (get_load_details lists them
 * when there are several), and negotiates each in turn through submit_offer, naming its load
 * number; a carrier with one truck that day takes one of the day's loads, not each of them.
 * `forced`: the call was asked to complete; the carrier then picks up and quotes.
 */
export function playMarketCall(
  market: SimulatedMarket,
  request: PlaceCallRequest,
  line: CallLine,
  forced: ForcedOutcome | null,
) {
  const ringMs = 15_000 + draw(market.model.seed, 'ring', request.callId) * 15_000;
  market.later(ringMs, async () => {
    const carrier =
      (await market.directory.carrierAtPhone(request.organizationId, request.to)) ?? unknownCarrier(request);
    const leadNumber =
      typeof request.variables.load_number === 'string' ? request.variables.load_number : null;
    const [lead] = leadNumber
      ? await market.directory.loads(carrier.organizationId, carrier.id, [leadNumber])
      : [];
    const p = market.persona(carrier);
    if (!forced) {
      if (market.silent) return line.end('NO_RESPONSE');
      if (p.deadPhone) return line.end('FAILED');
      const about = lead ?? placeholderLoad(request);
      const n = market.contactNumber(carrier, about, 'call');
      if (!market.model.answers(p, about, 'call', n)) {
        if (!market.model.voicemail(p, about, n)) return line.end('NO_RESPONSE');
        await line.answer();
        await line.pause(8_000);
        return line.end('VOICEMAIL');
      }
    }
    await line.answer();
    await converse(market, carrier, line, request, forced);
    await line.pause(5_000);
    await line.end('COMPLETED');
  });
}

async function converse(
  market: SimulatedMarket,
  carrier: MarketCarrier,
  line: CallLine,
  request: PlaceCallRequest,
  forced: ForcedOutcome | null,
) {
  await line.pause(4_000);
  if (forced?.stop) {
    line.say('user', 'Please take us off your list, do not call again.');
    await line.tool('request_stop_contact', { reason: 'asked on a call' });
    return;
  }
  const details = await line.tool('get_load_details', {});
  const listed = details?.metadata?.loads;
  const postedOf = new Map<string, number | null>();
  for (const x of Array.isArray(listed) ? listed : []) {
    const o = objectOf(x);
    if (typeof o?.load_number === 'string')
      postedOf.set(o.load_number, typeof o.posted_rate === 'number' ? o.posted_rate : null);
  }
  const leadNumber = typeof request.variables.load_number === 'string' ? request.variables.load_number : null;
  const numbers = postedOf.size ? [...postedOf.keys()] : leadNumber ? [leadNumber] : [];
  const loads = numbers.length
    ? await market.directory.loads(carrier.organizationId, carrier.id, numbers)
    : [];
  if (!loads.length) {
    line.say('user', 'Sorry, I do not know which load you mean.');
    return;
  }
  const several = loads.length > 1;
  const spoken = dollars(request.assistant.firstMessage);
  const promised = new Map<number, number>();
  for (const l of market.inPreferredOrder(carrier, loads)) {
    if (l.number !== leadNumber) market.contactNumber(carrier, l, 'call');
    const posted = several ? postedOf.get(l.number) : details?.metadata?.posted_rate;
    const ask =
      !several && spoken.length
        ? (spoken[spoken.length - 1] ?? null)
        : typeof posted === 'number'
          ? posted
          : null;
    const day = Math.floor((l.pickupAt ?? 0) / DAY);
    const outcome = await negotiate(
      market,
      carrier,
      l,
      line,
      ask,
      several,
      promised.get(day) ?? 0,
      forced !== null,
    );
    if (outcome === 'stop') return;
    // A truck is spoken for once the load is booked or left with a rep; a failed negotiation frees it.
    if (outcome === 'taken') promised.set(day, (promised.get(day) ?? 0) + 1);
    await line.pause(3_000);
  }
}

/** One load of a call, from the carrier's first answer: whether it stopped the call, or took the load (booked, or its offer left with a rep). */
async function negotiate(
  market: SimulatedMarket,
  carrier: MarketCarrier,
  l: MarketLoad,
  line: CallLine,
  ask: number | null,
  named: boolean,
  promised: number,
  willing: boolean,
): Promise<'stop' | 'taken' | 'none'> {
  const which = named ? { load_number: l.number } : {};
  let says: AgentSays = { kind: 'first', ask };
  for (let turn = 0; turn < 8; turn++) {
    const said = market.answerTo(carrier, l, says, 'call', willing ? 0 : promised, willing);
    if (!said) break;
    const { move } = said;
    line.say('user', `${named ? `${l.number}: ` : ''}${said.words}`);
    await line.pause(2_500);
    if (move.kind === 'stop') {
      await line.tool('request_stop_contact', { reason: 'asked on a call' });
      return 'stop';
    }
    if (move.kind === 'refuse' || move.kind === 'pass') break;
    if (move.kind === 'question') {
      const answer = await line.tool('answer_question', { ...which, topics: [move.topic] });
      says = answer?.result ? { kind: 'answered' } : { kind: 'closed' };
      continue;
    }
    // Its yes to "to confirm: ...?" is given as the assistant gives it: the amount, confirmed.
    const yes = says.kind === 'confirm' && move.kind === 'accept' ? { confirmed: true } : {};
    const answer = await line.tool('submit_offer', { offer_amount: move.amount, ...which, ...yes });
    const meta = answer?.metadata ?? {};
    if (meta.status === 'accepted') {
      market.book(carrier, l);
      return 'taken';
    }
    says = readAgent(answer?.result ?? '', market.talk(carrier, l).quotes, false);
    if (typeof meta.counter_offer_amount === 'number' && says.kind !== 'booked') {
      says = { kind: 'offer', amount: meta.counter_offer_amount };
    }
    if (says.kind === 'booked') {
      market.book(carrier, l);
      return 'taken';
    }
    if (says.kind === 'review') return 'taken';
    if (says.kind === 'closed') break;
  }
  return 'none';
}

/** A callee the organization has no carrier record of: known by its number only. */
const unknownCarrier = (request: PlaceCallRequest): MarketCarrier => ({
  id: null,
  organizationId: request.organizationId,
  key: `phone:${digits(request.to)}`,
  name: null,
  mc: null,
  homeState: null,
  phone: request.to,
  email: null,
});

/** What the call says of its load when the market cannot find it (a call without a load). */
const placeholderLoad = (request: PlaceCallRequest): MarketLoad => ({
  number: typeof request.variables.load_number === 'string' ? request.variables.load_number : request.callId,
  postedRate: null,
  suggestedMarketRate: null,
  distance: null,
  equipment: null,
  pickupAt: null,
  handedAt: 0,
  tier: null,
});
