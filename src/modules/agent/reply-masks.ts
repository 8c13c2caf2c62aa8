import { BLANK } from './reply-text.js';

/** The charges a carrier names beside its line haul, English and Spanish. */
const CHARGES =
  'detention|lumpers?|tarps?|tarping|tarp fee|layovers?|tonu|truck order not used|stop[\\s-]?offs?|extra stops?|stops?|extra drops?|driver assist|driver unload|hazmat(?: fee)?|fsc|fuel surcharge|fuel advance|advance|pallet jack|tolls?|scale(?: ticket)?|overweight|reconsignment|redelivery|cargo|liability|insurance|pallet exchange';
const CHARGES_ES = 'lonas?|maniobras?|estad[ií]as?|casetas?|detenci[oó]n';
/** Charges a figure follows ("permits $300", "anticipo de 500"), never precedes: "2400 permits at cost" is a price. */
const CHARGES_NAMED_FIRST = 'permits?|escorts?|permisos?|escoltas?|adelanto|adelantan|anticipo|advance of';
/** A charge named in words ("layover", "the second stop"): a condition after it is that charge's. */
export const CHARGE_WORD = new RegExp(`\\b(?:${CHARGES}|${CHARGES_ES}|${CHARGES_NAMED_FIRST})\\b`);

/**
 * Numbers a carrier's message carries besides its price, blanked out before the price is looked
 * for. Each entry is one kind; the order matters where patterns overlap: identifiers and phones go
 * first because their digits would otherwise look like dates or times, accessorial charges before
 * counts so "$75 per extra stop" goes whole.
 */
const NOT_A_RATE: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  // "MC 123456", "DOT# 2345678", "usdot: 1234567": carrier registration numbers.
  { name: 'authority', pattern: /\b(?:mc|dot|usdot|us dot|mx|ff)\s*(?:number|num|no\.?|#)?\s*[:#-]?\s*\d+/g },
  // "load 123456", "re: load #48213", "ref# 5521", "po 7788", "truck # 512", "ln-4471", "ld4471".
  {
    name: 'identifier',
    pattern:
      /\b(?:loads?|ld|order|ref|reference|po|pro|bol|b\/l|shipment|trip|conf|confirmation|unit|tracking)\s*(?:number|num|no\.?|#)?\s*[:#-]?\s*\d+|\b(?:truck|trailer|driver)\s*(?:number|num|no\.?|#)\s*[:#-]?\s*\d+|\b(?:truck|tractor|trailer|unit|unidad|caja|cami[oó]n|troca|po box)\s+\d+|#\s*\d+|\b[a-z]{1,5}-?\d{3,}\b/g,
  },
  // "(312) 555-0100", "555-123-4567", "+1 312 555 0100", "555-0100", "3125550100", "ext 1234".
  {
    name: 'phone',
    pattern:
      /(?:\+?1[\s.-]?)?\(\d{3}\)\s*\d{3}[\s.-]?\d{4}\b|(?:\+?1[\s.-]?)?\b\d{3}[\s.-]\d{3}[\s.-]\d{4}\b|\b\d{3}-\d{4}\b|\b\d{10,11}\b|\b(?:ext|extension|x)\.?\s*\d+/g,
  },
  // "12/15", "12/15/2024", "12-15-24", "dec 15", "december 15th, 2024", "on the 3rd".
  {
    name: 'date',
    pattern:
      /\b\d{1,2}\/\d{1,2}(?:\/\d{2,4})?\b|\b\d{1,2}-\d{1,2}-\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}\s+(?:de\s+)?(?:ene|feb|mar|abr|may|jun|jul|ago|sep|sept|oct|nov|dic)[a-z]*\.?(?:\s+(?:de\s+)?\d{4})?\b/g,
  },
  // "in 2024", "since 2019", "2022 freightliner": model years and calendar years.
  {
    name: 'year',
    pattern:
      /\b(?:in|since|year|model)\s+(?:19|20)\d{2}\b|\b(?:19|20)\d{2}(?=\s+(?:model|freightliner|kenworth|peterbilt|pete|volvo|international|mack|western star|utility|wabash|great dane|hyundai|trailer|truck|tractor|reefer|van|flatbed))/g,
  },
  // "at 14:30", "8am", "0800", "pick up 1400", "deliver by 0600", "1400 hrs": clock times. A bare
  // "1900" stays a price: only a leading zero, an hours suffix or a pickup/delivery word makes a
  // four-digit number a military time.
  {
    name: 'time',
    pattern:
      /\b\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?|\b\d{1,2}\s*[ap]\.?m\b\.?|\b0\d{3}\s*-\s*(?:[01]\d|2[0-3])[0-5]\d\b|\b0\d{3}\b|\b(?:[01]\d|2[0-3])[0-5]\d\s*(?:hrs|hours|h)\b|\b(?:pick\s?up|pu|deliver(?:y|ed)?|del|drop|appt|appointment|eta|arrive|arrival|load(?:ing)?|unload(?:ing)?|before|after|until|till|by)\s+(?:at\s+|by\s+|around\s+)?(?:[01]\d|2[0-3])[0-5]\d\b/g,
  },
  // "1200 industrial dr", "55 w monroe st, suite 300": street addresses in signatures.
  {
    name: 'address',
    pattern:
      /\b\d{1,6}\s+(?:[nsew]\.?\s+)?(?:(?!(?:on|in|at|for|the|this|that|a|an|and|to|per|my|our|your|all|each|a)\b)[a-z]+\s+){1,3}(?:dr|drive|st|street|ave|avenue|rd|road|blvd|boulevard|ln|lane|way|pkwy|parkway|hwy|highway|ct|court|pl|place|cir|circle|ter|trl|trail)\b\.?|\b(?:suite|ste|unit|apt)\.?\s*#?\s*\d+/g,
  },
  // "42,000 lbs", "44k lbs", "42000#", "20 tons", "18000 kg": cargo weight.
  {
    name: 'weight',
    pattern:
      /\b(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*k?\s*(?:lbs?\b|pounds?\b|#|tons?\b|kgs?\b|libras\b|toneladas\b)/g,
  },
  // "53' van", "48 ft", "53 foot", "26ft box truck": equipment length.
  { name: 'length', pattern: /\b\d{2}\s*(?:'|ft\b|foot\b|feet\b|footer\b)/g },
  // "-10f", "34 degrees", "0 deg", "-10°": reefer temperature.
  { name: 'temperature', pattern: /-?\b\d{1,3}\s*(?:°\s*[fc]?|degrees?\b|deg\b|f\b|c\b)/g },
  // "10%", "5 percent": fuel surcharge or quick-pay percentages.
  { name: 'percentage', pattern: /\b\d+(?:\.\d+)?\s*(?:%|percent\b|pct\b)/g },
  // "fuel surcharge per DOE ($0.52/mi)", "FSC is 38 cents a mile": fuel on top of the line haul, per mile.
  {
    name: 'fuel per mile',
    pattern:
      /\b(?:fsc|fuel surcharge|fuel|doe)\b[^\d\n]{0,30}\$?\d+(?:\.\d+)?\s*(?:\/\s*mi(?:le)?\b|(?:a|per)\s+mile\b|cents\b)/g,
  },
  // Accessorial charges beside the line haul, the charge named after the amount ("$150 detention",
  // "75 lumper", "200 for the tonu", "100 per extra stop", "$50/hr") or before it ("tonu $150",
  // "lumper 350", "extra stop is 75", "tarp fee $100", "fsc $420", "fuel advance 500").
  {
    name: 'accessorial',
    pattern: new RegExp(
      [
        String.raw`\$?[ \t]*\b(?:NUM)[ \t]*(?:(?:for|de|por)[ \t]+(?:the[ \t]+|a[ \t]+|an[ \t]+|each[ \t]+|la[ \t]+|las[ \t]+|el[ \t]+)?|per[ \t]+|each[ \t]+|an?[ \t]+)?(?:extra[ \t]+|additional[ \t]+|second[ \t]+|third[ \t]+|2nd[ \t]+|3rd[ \t]+)?(?:ACC)\b`,
        String.raw`\$?[ \t]*\b(?:NUM)[ \t]*(?:\/|per|an?|por)[ \t]*(?:hr|hour|hora|day|d[ií]a|night|stop|parada|drop|pick)\b`,
        String.raw`\b(?:ACC_BEFORE)(?:[ \t]*(?:fee|fees|charge|charges|pay|rate|is|of|de|add|adds|would be|will be|at|=|:|-|\+|\(|\$))*[ \t]*\$?[ \t]*(?:NUM)(?:[ \t]*(?:each|per[ \t]+\w+|\/[ \t]*\w+))?`,
      ]
        .join('|')
        .replaceAll('NUM', String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`)
        .replaceAll('ACC_BEFORE', `${CHARGES}|${CHARGES_NAMED_FIRST}`)
        .replaceAll('ACC', `${CHARGES}|${CHARGES_ES}`),
      'g',
    ),
  },
  // "we have 2 trucks", "26 pallets", "850 miles", "3 stops", "2 days": counts and distances.
  {
    name: 'count',
    pattern:
      /\b(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:trucks?|units?|drivers?|teams?|loads?|stops?|drops?|picks?|pallets?|skids?|pieces?|pcs|cases?|boxes|days?|nights?|hours?|hrs?|weeks?|mins?|minutes?|miles?|mi|axles?|trailers?|vans?|reefers?|flatbeds?|years?|months?|millas|horas|d[ií]as|semanas|camiones|unidades|tarimas|paradas|piezas|cargas|a[ñn]os)\b|\bnet\s*\d+\b/g,
  },
  // "60601", "dallas, tx 75201", "zip 30301": a five-digit number after a place word or a state
  // code. Other bare five-digit numbers are rejected later unless a price cue stands beside them.
  {
    name: 'zip',
    pattern:
      /\b(?:zip|in|at|from|to|near|around|al|ak|az|ar|ca|co|ct|de|fl|ga|hi|id|il|ia|ks|ky|la|me|md|ma|mi|mn|ms|mo|mt|ne|nv|nh|nj|nm|ny|nc|nd|oh|ok|or|pa|ri|sc|sd|tn|tx|ut|vt|va|wa|wv|wi|wy)\s*,?\s*:?\s*\d{5}(?:-\d{4})?\b|\b\d{5}-\d{4}\b/g,
  },
];

/** The text with every number of the kinds above blanked out. */
export function maskNonRates(text: string): string {
  let masked = text;
  for (const { pattern } of NOT_A_RATE) {
    masked = masked.replace(pattern, (match) => BLANK.repeat(match.length));
  }
  return masked;
}
