/**
 * The agent's default wording to carriers, in English and in Spanish (a carrier who writes in
 * Spanish is answered in Spanish). A chat model may draft instead, from the same inputs. Nothing
 * internal is said: the posted rate, the agent's own asks and the carrier's amount only.
 */

export type Language = 'en' | 'es';

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

export type ReplyIntent =
  | 'first_contact'
  | 'review'
  | 'accept'
  | 'counter'
  | 'final'
  | 'pass'
  | 'decline'
  | 'ask_rate'
  /** The carrier's amount was not firm (a range, a condition) or not certain: asked to confirm it. */
  | 'confirm'
  /** A price without a figure to confirm ("low 2s"): asked for one firm rate. */
  | 'ask_firm_rate'
  | 'not_available'
  | 'stop_confirmed'
  | 'restriction_notice'
  /** The carrier is not vetted yet: its quote is kept, no rate is discussed. */
  | 'vetting_pending'
  | 'covered';

export interface LoadSummary {
  load_number: string;
  equipment_type: string;
  origin: string;
  destination: string;
  pickup_date: Date | null;
  posted_rate: number | null;
}

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

/** One line describing the load: lane, equipment, pickup and posted rate. Nothing internal. */
export function describeLoad(l: LoadSummary, language: Language = 'en'): string {
  const pickup = day(l.pickup_date);
  if (language === 'es') {
    return (
      `carga ${l.load_number}: ${l.origin} a ${l.destination}, ${l.equipment_type}` +
      (pickup ? `, recolección ${pickup}` : '') +
      (l.posted_rate !== null ? `, tarifa publicada ${usd(l.posted_rate)}` : '')
    );
  }
  return (
    `load ${l.load_number}: ${l.origin} to ${l.destination}, ${l.equipment_type}` +
    (pickup ? `, pickup ${pickup}` : '') +
    (l.posted_rate !== null ? `, posted rate ${usd(l.posted_rate)}` : '')
  );
}

type Say = (load: LoadSummary, name: string, amount: string, detail: string | null) => string;

const ENGLISH: Record<ReplyIntent, Say> = {
  first_contact: (l, name) =>
    `Hi ${name}, we have ${describeLoad(l)}. Do you have a truck for it? Reply with your rate, all in.`,
  review: (l, _n, a) =>
    `Thanks, we have your rate of ${a} for load ${l.load_number}. A rep will confirm shortly.`,
  accept: (l, _n, a) =>
    `Thanks, load ${l.load_number} is booked with you at ${a}. A rep will send the rate confirmation.`,
  counter: (l, _n, a) =>
    `Thanks for the quote. We can do ${a} on load ${l.load_number}. Does that work for you?`,
  final: (l, _n, a) =>
    `Thanks. The best we can do on load ${l.load_number} is ${a}. Let us know if that works for you.`,
  pass: (l) =>
    `Thanks for the quote. We can't make it work on load ${l.load_number} this time; we will keep you in mind for the next one.`,
  decline: (l, _n, a) =>
    `Thanks for the quote. ${a} is more than we can do on load ${l.load_number}, so we will pass this time. We will keep you in mind for the next one.`,
  ask_rate: (l) => `Thanks! What rate would you need for load ${l.load_number}, all in?`,
  confirm: (l, _n, a) => `Thanks! To confirm: load ${l.load_number} at ${a} all in?`,
  ask_firm_rate: (l) => `Thanks! What is your firm rate for load ${l.load_number}, all in?`,
  covered: (l) =>
    `Thanks for getting back to us. Load ${l.load_number} is already covered; we will reach out with the next one.`,
  not_available: () => 'No problem, thanks for letting us know. We will reach out with the next one.',
  stop_confirmed: () => 'Understood. We have removed you from our outreach and will not contact you again.',
  restriction_notice: (_l, name, _a, detail) =>
    `Hello ${name}, our records show your account is currently on hold with us${detail ? ` (${detail})` : ''}. Please contact your carrier representative to resolve it; we cannot discuss loads until then.`,
  vetting_pending: (l) =>
    `Thanks for your reply about load ${l.load_number} (${l.origin} to ${l.destination}, ${l.equipment_type}). ` +
    'We have your quote. Before we can discuss rates we need to finish verifying your company; a rep will follow up with you.',
};

const SPANISH: Record<ReplyIntent, Say> = {
  first_contact: (l, name) =>
    `Hola ${name}, tenemos ${describeLoad(l, 'es')}. ¿Tiene camión para ella? Responda con su tarifa, todo incluido.`,
  review: (l, _n, a) =>
    `Gracias, tenemos su tarifa de ${a} para la carga ${l.load_number}. Un representante la confirmará en breve.`,
  accept: (l, _n, a) =>
    `Gracias, la carga ${l.load_number} queda reservada con ustedes a ${a}. Un representante le enviará la confirmación de tarifa.`,
  counter: (l, _n, a) =>
    `Gracias por la cotización. Podemos ofrecer ${a} por la carga ${l.load_number}. ¿Le funciona?`,
  final: (l, _n, a) =>
    `Gracias. Lo más que podemos ofrecer por la carga ${l.load_number} es ${a}. Avísenos si le funciona.`,
  pass: (l) =>
    `Gracias por la cotización. Esta vez no podemos con la carga ${l.load_number}; lo tendremos en cuenta para la próxima.`,
  decline: (l, _n, a) =>
    `Gracias por la cotización. ${a} es más de lo que podemos pagar por la carga ${l.load_number}, así que esta vez pasamos. Lo tendremos en cuenta para la próxima.`,
  ask_rate: (l) => `¡Gracias! ¿Qué tarifa necesita para la carga ${l.load_number}, todo incluido?`,
  confirm: (l, _n, a) => `¡Gracias! Para confirmar: ¿carga ${l.load_number} a ${a} todo incluido?`,
  ask_firm_rate: (l) => `¡Gracias! ¿Cuál es su tarifa firme para la carga ${l.load_number}, todo incluido?`,
  covered: (l) =>
    `Gracias por responder. La carga ${l.load_number} ya está cubierta; le escribiremos con la próxima.`,
  not_available: () => 'No hay problema, gracias por avisar. Le escribiremos con la próxima.',
  stop_confirmed: () => 'Entendido. Lo hemos quitado de nuestra lista y no volveremos a contactarlo.',
  restriction_notice: (_l, name, _a, detail) =>
    `Hola ${name}, nuestros registros muestran que su cuenta está en espera con nosotros${detail ? ` (${detail})` : ''}. Comuníquese con su representante de transportistas para resolverlo; hasta entonces no podemos hablar de cargas.`,
  vetting_pending: (l) =>
    `Gracias por su respuesta sobre la carga ${l.load_number} (${l.origin} a ${l.destination}, ${l.equipment_type}). ` +
    'Tenemos su cotización. Antes de hablar de tarifas debemos terminar de verificar su empresa; un representante le dará seguimiento.',
};

/** The agent's default wording for `intent` (an LLM may draft instead, from the same inputs). */
export function replyText(
  intent: ReplyIntent,
  load: LoadSummary,
  carrierName: string,
  amount?: number | null,
  detail?: string | null,
  language: Language = 'en',
): string {
  const say = (language === 'es' ? SPANISH : ENGLISH)[intent];
  return say(load, carrierName, usd(amount ?? 0), detail ?? null);
}
