import type { QuestionTopic } from '../../domain/load-questions.js';
import { sentencesOf } from './reply-text.js';
import { carrierPart } from './reply-words-thread.js';

/**
 * What a carrier asks about the load. A topic counts only inside a question: a sentence with a
 * question mark, or one that starts the way questions and requests start ("what's the weight",
 * "need to know if tarps", "send me the details"). "2 stops ok" states, "how many stops" asks.
 */
const ASKING_START =
  /^\s*(?:(?:hi|hello|hey|ok|okay|also|and|so|thanks|quick question|buenas|hola|oiga|oye)[,!.]?\s+)*(?:(?:what|what's|whats|wat|wats|wht|when|wen|where|whr|how|hw|any|which|who|who's|qu[eé]|cu[aá]l|cu[aá]ndo|cu[aá]nto|cu[aá]ntos|cu[aá]ntas|d[oó]nde|c[oó]mo)(?![a-z'\u00e0-\u00ff])|(?:is|are|does|do|did|can|could|will|would|has|have)\s+(?:you|u|ya|y'all|we|i|it|this|that|there|the|they|he|she|your)\b|need\s+(?:the|to know|to see|a|an)\b|need\s+(?:\w+\s+)?(?:count|weight|dims|dimensions|address|info|details|pu#?|pickup|hours)\b|send\s+(?:me|us|over|the)\b|please\s+(?:send|confirm|advise|let)\b|pls\s+(?:send|confirm)\b|let\s+me\s+know\b|(?:i|we)\s+(?:want|need|would like|'d like)\s+to\s+(?:confirm|know|check)\b|pu\b|del\b)/;
/** Words that ask wherever they stand: "..., but I want to confirm the pickup number first". */
const ASKING_INSIDE =
  /\b(?:i|we)\s+(?:want|need|would like|'d like)\s+to\s+(?:confirm|know|check|see)\b|\bneed\s+to\s+know\b|\bcan\s+(?:you|u)\s+(?:tell|send|confirm)\b|\bme\s+(?:pasa|pasas|manda|mandas|env[ií]a|confirma|confirmas|dice|dices|regala)\b|\b(?:m[aá]nde|p[aá]se|env[ií]e)(?:me|nos)\b|\b(?:necesito|quisiera|ocupo)\s+saber\b|\bfavor\s+de\s+(?:enviar|mandar|confirmar|pasar)\b/;

/** A Spanish word ends where a letter does not follow (accented letters count). */
const ES = '(?![a-z\\u00e0-\\u00ff])';
const es = (source: string) => new RegExp(source.replaceAll('$ES', ES));

/** Each topic's words; a topic may also step aside for a more precise one in the same sentence. */
const TOPICS: ReadonlyArray<{ topic: QuestionTopic; pattern: RegExp; unless?: RegExp }> = [
  {
    topic: 'weight',
    pattern: es(
      '\\bweigh(?:t|s)?\\b|\\bwt\\b|\\bhow\\s+heavy\\b|\\bheavy\\b|\\blbs\\b|\\bpounds\\b|\\bpes(?:o|a|an)$ES|\\blibras$ES|\\bkilos$ES',
    ),
  },
  {
    topic: 'commodity',
    pattern: es(
      [
        "\\bcommodity\\b|\\bwhat\\s+(?:are\\s+we|am\\s+i|is\\s+it|'s\\s+it|we)\\s+(?:hauling|moving|carrying|picking up)\\b",
        "\\bwhat(?:'s| is)?\\s+(?:the\\s+)?(?:product|freight)\\b|\\bwhat\\s+(?:kind|kinda|type)\\s+(?:of\\s+)?(?:freight|product|load)\\b",
        '\\bhow many\\s+(?:pallets|plts|skids|pieces|cases|pcs|units|boxes)\\b|\\b(?:pallet|piece|skid)\\s+count\\b',
        '\\bdim(?:s|ensions)\\b|\\bhow\\s+(?:long|wide|tall|big|high)\\s+(?:is|are|r)\\s+(?:the\\s+)?(?!wait|drive|run|trip)[a-z]+',
        '\\bproducto$ES|\\bmercanc[ií]a$ES|\\bqu[eé]\\s+(?:es|lleva|trae)(?:\\s+(?:la\\s+carga|el\\s+producto))?$ES|\\bqu[eé]\\s+carga$ES',
        '\\bcu[aá]nt[oa]s\\s+(?:tarimas|piezas|pallets|cajas|bultos)$ES|\\bmedidas$ES|\\bdimensiones$ES|\\bfrutas?$ES|\\bverduras?$ES',
      ].join('|'),
    ),
  },
  {
    topic: 'appointment',
    pattern: es('\\bappointments?\\b|\\bappts?\\b|\\bfcfs\\b|\\bfirst come\\b|\\bcita$ES'),
  },
  {
    topic: 'pickup_time',
    pattern: es(
      [
        '\\bpick\\s?-?up\\b(?!\\s*(?:#|number|no\\b|num|location|address|city))|\\bp\\/?u\\b(?!\\s*#)|\\bpick\\s+(?:time|date)\\b|\\b(?:ready|rdy)\\s+time\\b|\\bload(?:ing)?\\s+time\\b',
        '\\b(?:what\\s+time|when)\\s+(?:does|do|will|is)\\s+(?:it|they|the\\s+\\w+)\\s+load\\b',
        "\\b(?:loading|shipping|shipper'?s?)\\s+hours\\b|\\bhow\\s+long\\s+(?:is|are)\\s+the\\s+wait\\b|\\bwait\\s+(?:time|to\\s+load)\\b",
        '\\bqu[eé]\\s+hora\\s+(?:carga|cargan|cargamos|recoge)$ES|\\bhora\\s+de\\s+carga$ES|\\bcu[aá]ndo\\s+(?:carga|cargan|se\\s+carga)$ES|\\besperar\\s+para\\s+cargar$ES|\\bhorario\\s+de\\s+carga$ES|\\bqu[eé]\\s+hora\\s+(?:la|lo)\\s+cargan$ES|\\bfecha\\s+de\\s+carga$ES|\\bcu[aá]ndo\\s+sale$ES|\\bqu[eé]\\s+d[ií]a\\s+(?:se\\s+)?(?:carga|cargan|la\\s+cargan|sale)$ES',
      ].join('|'),
    ),
    unless: es(
      '\\bappointments?\\b|\\bappts?\\b|\\bfcfs\\b|\\bwhere\\b|\\bwhr\\b|\\baddress\\b|\\blocation\\b|\\bcita$ES',
    ),
  },
  {
    topic: 'delivery_time',
    pattern: es(
      "\\bdeliver(?:y|s|ed)?\\b(?!\\s+(?:address|location))|\\bdel\\s+(?:date|time)\\b|\\bdrop\\s+(?:date|time)\\b|\\bdue\\b|\\b(?:consignee|receiver|receiving)'?s?\\s+hours\\b|\\bhora\\s+de\\s+entrega$ES|\\bcu[aá]ndo\\s+(?:se\\s+)?entrega$ES|\\bqu[eé]\\s+hora\\s+(?:se\\s+)?(?:entrega|descarga|llega)$ES|\\bfecha\\s+de\\s+entrega$ES|\\bentrega$ES|\\bdel(?:i?v)?(?:ry)?\\s+time\\b|\\bdlvry\\b",
    ),
    unless: es(
      '\\bappointments?\\b|\\bappts?\\b|\\bfcfs\\b|\\bwhere\\b|\\bwhr\\b|\\bd[oó]nde$ES|\\baddress\\b|\\blocation\\b|\\bforklift\\b|\\blumper\\b|\\bunload\\b|\\bcita$ES',
    ),
  },
  {
    topic: 'drop_and_hook',
    pattern: es(
      "\\bdrop\\s*(?:and|&|n|'n')\\s*hook\\b|\\bd\\s*&\\s*h\\b|\\bdrop\\s+trailer\\b|\\blive\\s+(?:load|unload)\\b|\\bpre-?loaded\\b|\\bor\\s+drop\\b|\\bdrop\\s+or\\s+live\\b|\\bdrop\\s+o\\s+(?:live|en\\s+vivo)$ES|\\ben\\s+vivo$ES",
    ),
  },
  {
    topic: 'unloading',
    pattern: es(
      [
        '\\btouch\\s+freight\\b|(?<!live\\s)\\bunload\\b|\\bdriver\\s+assist\\b|\\bno\\s+touch\\b|\\bhand\\s+unload\\b|\\blumpers?\\b(?!\\s*\\$?\\d|\\s+(?:charges?|fees?|costs?)\\b)',
        '\\bfloor(?:ed|\\s+load(?:ed)?)\\b|\\bforklift\\b|\\bcrane\\b',
        '\\btouch\\b|\\bde\\s+piso$ES|\\bmontacargas$ES|\\bgr[uú]a$ES|\\ba\\s+mano$ES|\\bhay\\s+que\\s+descargar$ES|\\bdescarga\\s+el\\s+(?:chofer|operador)$ES',
      ].join('|'),
    ),
  },
  { topic: 'tarps', pattern: es('\\btarp(?:s|ing|ed)?\\b|\\blonas?$ES|\\bencarp\\w*') },
  { topic: 'hazmat', pattern: es('\\bhaz\\s?mat\\b|\\bhazardous\\b|\\bplacard|\\bpeligros[oa]$ES') },
  {
    topic: 'stops',
    pattern: es(
      '(?<!non-)\\bstops?\\b|\\bmulti[\\s-]?stop\\b|\\bmulti[\\s-]?drop\\b|\\bhow many\\s+drops\\b|\\bparadas?$ES|\\bcu[aá]ntas\\s+entregas$ES',
    ),
  },
  {
    topic: 'equipment',
    pattern: es(
      [
        '\\b(?:what|which)\\s+(?:kind\\s+of\\s+|type\\s+of\\s+|size\\s+)?(?:trailer|equipment|truck)\\b',
        '\\b(?:van|reefer|flatbed)\\s+or\\s+(?:van|reefer|flatbed)\\b',
        "\\b(?:box truck|straight truck|sprinter|hot ?shot|step ?deck|flatbed|reefer|dry van|\\d{2}'|\\d{2}\\s*(?:ft|foot))\\b[^?]*\\b(?:ok|okay|work|fine|good|enough)\\s*\\?",
        '\\bqu[eé]\\s+(?:tipo\\s+de\\s+)?(?:caja|tr[aá]iler|equipo)$ES',
      ].join('|'),
    ),
  },
  {
    topic: 'temperature',
    pattern: es(
      '\\btemp(?:erature)?s?\\b|\\bdegrees\\b|\\bpre-?cool(?:ed)?\\b|\\btemperatura$ES|\\bgrados$ES|\\bcongelad[oa]$ES|\\bfrozen\\b|\\bcont(?:inuous)?\\s+or\\s+cycle\\b',
    ),
  },
  {
    topic: 'miles',
    pattern: es(
      '(?<!\\d\\s*(?:k\\s+|mil\\s+)?)(?:\\bmiles\\b|\\bmillas$ES)|\\bmileage\\b|\\bdistance\\b|\\bhow\\s+far\\b|\\bdistancia$ES',
    ),
  },
  {
    topic: 'location',
    pattern: es(
      '\\bwhere\\b|\\baddress\\b|\\b(?:what|which)\\s+city\\b|\\bexact\\s+location\\b|\\bpick\\s?-?up\\s*(?:#|number|no\\b|num)|\\bpu\\s*#|\\bcross(?:ing)?\\s+the\\s+border\\b|\\bwhr\\b|\\bzip(?:\\s*code)?\\b|\\baddy\\b|\\bqu[eé]\\s+ciudad$ES|\\bd[oó]nde$ES|\\bdirecci[oó]n$ES|\\bubicaci[oó]n$ES|\\bcruzar$ES|\\bde\\s+este\\s+lado$ES',
    ),
    unless: /\bwhere\s+(?:are|r)\s+you\b/,
  },
  {
    topic: 'rate',
    pattern: es(
      '\\bpay(?:s|ing)?\\b|\\brate\\b(?!\\s+con)|\\bhow\\s+much\\b|\\bbudget\\b|\\btarget\\b|\\bhighest\\b|\\bhow\\s+high\\b|\\ball[\\s-]?in\\b|\\broom\\b|\\bcu[aá]nto\\s+(?:(?:me|nos|le)\\s+)?(?:paga|pagan|pagas|es|ofrecen|dan)$ES|\\brpm\\b|\\bper\\s+mile\\b|\\bpor\\s+milla$ES|\\blo\\s+m[aá]s\\s+que$ES|\\btarifa$ES|\\btodo\\s+incluido$ES',
    ),
    unless: es(
      '\\bweigh|\\bquick\\s*pay\\b|\\bpayment\\b|\\bterms\\b|\\b(?:layover|detention|tonu|lumper)\\s+(?:pay|paid)\\b|\\bpesa$ES',
    ),
  },
  {
    topic: 'payment_terms',
    pattern: es(
      '\\bquick\\s*pay\\b|\\bpayment\\s+terms\\b|\\bpay\\s+terms\\b|\\bnet\\s+\\d+\\b|\\bfactoring\\b|\\b(?:layover|detention|tonu)\\s+(?:pay|paid)\\b|\\bqp\\b|\\bpago\\s+r[aá]pido$ES|\\bcu[aá]ndo\\s+pagan$ES|\\bd[ií]as\\s+(?:de|para)\\s+pag\\w*',
    ),
  },
  {
    topic: 'shipper',
    pattern: es(
      "\\bwho(?:'s| is)\\s+the\\s+(?:shipper|customer|receiver)\\b|\\b(?:shipper|customer)\\s+name\\b|\\bqui[eé]n\\s+es\\s+el\\s+(?:cliente|shipper|embarcador)$ES",
    ),
  },
  {
    topic: 'still_open',
    pattern: es(
      '^\\s*(?:is\\s+it\\s+)?(?:still\\s+)?(?:avail\\w*|open)\\s*\\?+\\s*$|\\bstill\\s+got\\b|\\bstill\\s+(?:avail\\w*|open|need(?:ed)?|have\\s+(?:this|that|the|it)|there|covered|good)\\b|\\bis\\s+it\\s+(?:covered|booked|gone|taken|avail\\w*)\\b|\\bneed\\s+a\\s+truck\\s+still\\b|\\bla\\s+tienen\\s+todav[ií]a$ES|\\bya\\s+(?:la\\s+)?(?:cubrieron|asignaron|dieron)$ES|\\b(?:sigue|siguen|todav[ií]a|a[uú]n)\\s+(?:est[aá]\\s+)?(?:disponibles?|abiert[oa]|libre|la\\s+tienen|la\\s+ocupan)$ES',
    ),
  },
  {
    topic: 'details',
    pattern: es(
      '\\b(?:the\\s+|more\\s+|load\\s+)details\\b|\\bmore\\s+info\\b|\\bsend\\s+(?:me\\s+)?(?:the\\s+)?info\\b|\\bdetalles$ES|\\bm[aá]s\\s+info(?:rmaci[oó]n)?$ES',
    ),
  },
];

/**
 * The topics asked, in the order first asked. A carrier who names its own price has not asked
 * what the load pays ("we did this lane for 2600, same rate?"), so `rate` is left out then.
 */
export function askedTopics(reply: string, namedPrice: boolean): QuestionTopic[] {
  const text = carrierPart(reply);
  const found: Array<{ topic: QuestionTopic; at: number }> = [];
  for (const sentence of sentencesOf(text)) {
    if (!sentence.question && !ASKING_START.test(sentence.text) && !ASKING_INSIDE.test(sentence.text))
      continue;
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
