import type { QuestionTopic } from '../../domain/load-questions.js';
import { sentencesOf } from './reply-text.js';

/**
 * What a carrier asks about the load. A topic counts only inside a question: a sentence with a
 * question mark, or one that starts the way questions and requests start ("what's the weight",
 * "need to know if tarps", "send me the details"). "2 stops ok" states, "how many stops" asks.
 */
const ASKING_START =
  /^\s*(?:(?:hi|hello|hey|ok|okay|also|and|so|thanks|quick question)[,!.]?\s+)*(?:(?:what|what's|whats|wat|when|where|how|any|which|who|who's)(?![a-z'])|(?:is|are|does|do|did|can|could|will|would|has|have)\s+(?:you|u|ya|y'all|we|i|it|this|that|there|the|they|he|she|your)\b|need\s+(?:the|to know)\b|send\s+(?:me|us|over)\b|please\s+send\b|let\s+me\s+know\b|pls\s+send\b|pu\b|del\b)/;

/** Each topic's words; a topic may also step aside for a more precise one in the same sentence. */
const TOPICS: ReadonlyArray<{ topic: QuestionTopic; pattern: RegExp; unless?: RegExp }> = [
  { topic: 'weight', pattern: /\bweigh(?:t|s)?\b|\bheavy\b|\blbs\b|\bpounds\b/ },
  {
    topic: 'commodity',
    pattern:
      /\bcommodity\b|\bwhat\s+(?:are\s+we|am\s+i|is\s+it|'s\s+it|we)\s+(?:hauling|moving|carrying|picking up)\b|\bwhat(?:'s| is)?\s+(?:the\s+)?(?:product|freight)\b|\bhow many\s+(?:pallets|skids|pieces|cases)\b|\bwhat\s+kind\s+of\s+freight\b/,
  },
  { topic: 'appointment', pattern: /\bappointments?\b|\bappts?\b|\bfcfs\b|\bfirst come\b/ },
  {
    topic: 'pickup_time',
    pattern:
      /\bpick\s?-?up\b|\bpu\b|\bpick\s+(?:time|date)\b|\bready\s+time\b|\bload(?:ing)?\s+time\b|\b(?:what\s+time|when)\s+(?:does|do|will|is)\s+(?:it|they|the\s+\w+)\s+load\b/,
    unless: /\bappointments?\b|\bappts?\b|\bfcfs\b|\bwhere\b|\baddress\b|\blocation\b/,
  },
  {
    topic: 'delivery_time',
    pattern:
      /\bdeliver(?:y|s|ed)?\b|\bdel\s+(?:date|time)\b|\bdrop\s+(?:date|time)\b|\bdue\b|\bconsignee\s+hours\b/,
    unless: /\bappointments?\b|\bappts?\b|\bfcfs\b|\bwhere\b|\baddress\b|\blocation\b/,
  },
  {
    topic: 'drop_and_hook',
    pattern:
      /\bdrop\s*(?:and|&|n|'n')\s*hook\b|\bd\s*&\s*h\b|\bdrop\s+trailer\b|\blive\s+(?:load|unload)\b|\bpre-?loaded\b|\bor\s+drop\b/,
  },
  {
    topic: 'unloading',
    pattern: /\btouch\s+freight\b|\bunload\b|\bdriver\s+assist\b|\bno\s+touch\b|\bhand\s+unload\b/,
  },
  { topic: 'tarps', pattern: /\btarp(?:s|ing|ed)?\b/ },
  { topic: 'hazmat', pattern: /\bhaz\s?mat\b|\bhazardous\b|\bplacard/ },
  {
    topic: 'stops',
    pattern: /(?<!non-)\bstops?\b|\bmulti[\s-]?stop\b|\bmulti[\s-]?drop\b|\bhow many\s+drops\b/,
  },
  {
    topic: 'equipment',
    pattern:
      /\b(?:what|which)\s+(?:kind\s+of\s+|type\s+of\s+)?(?:trailer|equipment|truck)\b|\b(?:van|reefer|flatbed)\s+or\s+(?:van|reefer|flatbed)\b/,
  },
  { topic: 'temperature', pattern: /\btemp(?:erature)?s?\b|\bdegrees\b/ },
  { topic: 'miles', pattern: /\bmiles\b|\bmileage\b|\bdistance\b|\bhow\s+far\b/ },
  {
    topic: 'location',
    pattern: /\bwhere\b|\baddress\b|\b(?:what|which)\s+city\b|\bexact\s+location\b/,
    unless: /\bwhere\s+(?:are|r)\s+you\b/,
  },
  {
    topic: 'rate',
    pattern:
      /\bpay(?:s|ing)?\b|\brate\b|\bhow\s+much\b|\bbudget\b|\btarget\b|\bhighest\b|\bhow\s+high\b|\ball[\s-]?in\b/,
    unless:
      /\bweigh|\bquick\s*pay\b|\bpayment\b|\bterms\b|\b(?:layover|detention|tonu|lumper)\s+(?:pay|paid)\b/,
  },
  {
    topic: 'payment_terms',
    pattern:
      /\bquick\s*pay\b|\bpayment\s+terms\b|\bpay\s+terms\b|\bnet\s+\d+\b|\bfactoring\b|\b(?:layover|detention|tonu)\s+(?:pay|paid)\b/,
  },
  {
    topic: 'shipper',
    pattern: /\bwho(?:'s| is)\s+the\s+(?:shipper|customer|receiver)\b|\b(?:shipper|customer)\s+name\b/,
  },
  {
    topic: 'still_open',
    pattern:
      /\bstill\s+(?:available|open|need(?:ed)?|have\s+(?:this|that|the|it)|there|covered|good)\b|\bis\s+it\s+covered\b/,
  },
  {
    topic: 'details',
    pattern: /\b(?:the\s+|more\s+|load\s+)details\b|\bmore\s+info\b|\bsend\s+(?:me\s+)?(?:the\s+)?info\b/,
  },
];

/**
 * The topics asked, in the order first asked. A carrier who names its own price has not asked
 * what the load pays ("we did this lane for 2600, same rate?"), so `rate` is left out then.
 */
export function askedTopics(text: string, namedPrice: boolean): QuestionTopic[] {
  const found: Array<{ topic: QuestionTopic; at: number }> = [];
  for (const sentence of sentencesOf(text)) {
    if (!sentence.question && !ASKING_START.test(sentence.text)) continue;
    for (const { topic, pattern, unless } of TOPICS) {
      if (topic === 'rate' && namedPrice) continue;
      const match = pattern.exec(sentence.text);
      if (!match || unless?.test(sentence.text)) continue;
      found.push({ topic, at: sentence.start + match.index });
    }
  }
  const topics: QuestionTopic[] = [];
  for (const { topic } of found.sort((a, b) => a.at - b.at)) if (!topics.includes(topic)) topics.push(topic);
  return topics;
}
