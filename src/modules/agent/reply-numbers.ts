/**
 * Prices as carriers write them in words and shorthand, rewritten as plain digits so the later
 * steps read one spelling: "twenty three hundred", "twenty-two fifty", "2 grand", "2grand n half",
 * "24hunnid", "2k4", "dos mil cuatrocientos", "mil cien", "3 mil 200", "3.4 mil".
 * Runs of number words worth less than 100 ("two trucks", "dos horas") stay words.
 */
import { defined } from '../../lib/defined.js';

const EN_UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const EN_TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const EN_MULTIPLIERS: Record<string, number> = { hundred: 100, thousand: 1000, grand: 1000 };
const EN_WORD = [...Object.keys(EN_UNITS), ...Object.keys(EN_TENS), ...Object.keys(EN_MULTIPLIERS)].join('|');

/** A run of number words (or digits followed by number words, as in "2 grand"), hyphens allowed. */
const EN_RUN = new RegExp(`\\b(?:\\d+|${EN_WORD})(?:(?:[\\s-]+|\\s+and\\s+)(?:${EN_WORD})\\b)+`, 'g');

/** Spanish number words below a thousand, each with its value. */
const ES_WORDS: Record<string, number> = {
  un: 1,
  uno: 1,
  una: 1,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  once: 11,
  doce: 12,
  trece: 13,
  catorce: 14,
  quince: 15,
  veinte: 20,
  treinta: 30,
  cuarenta: 40,
  cincuenta: 50,
  sesenta: 60,
  setenta: 70,
  ochenta: 80,
  noventa: 90,
  cien: 100,
  ciento: 100,
  doscientos: 200,
  trescientos: 300,
  cuatrocientos: 400,
  quinientos: 500,
  seiscientos: 600,
  setecientos: 700,
  ochocientos: 800,
  novecientos: 900,
};
const ES_WORD = [
  ...Object.keys(ES_WORDS).sort((a, b) => b.length - a.length),
  'mil',
  'veinti\\w+',
  'dieci\\w+',
].join('|');
const ES_RUN = new RegExp(`\\b(?:${ES_WORD})\\b(?:\\s+(?:y\\s+)?(?:${ES_WORD})\\b)*`, 'g');

export function spelledNumbersToDigits(text: string): string {
  return shorthandToDigits(spanishToDigits(englishToDigits(text)));
}

/**
 * "twenty three hundred", "two thousand five hundred", "2 grand", and prices said aloud in
 * pairs, "twenty-two fifty" (2250). Other runs stay words: "two trucks" is never a price.
 */
function englishToDigits(text: string): string {
  return text
    .replace(/\b(\d+)\s*(?:hunnid|hundo|hunned)s?\b/g, '$1 hundred')
    .replace(/\b(\d+)\s*grand\s+(?:n|and|&)\s+(?:a\s+)?half\b/g, (_, n: string) =>
      String(Number(n) * 1000 + 500),
    )
    .replace(EN_RUN, (run) => {
      const words = run.split(/[\s-]+/).filter((word) => word !== 'and');
      if (words.some((word) => word in EN_MULTIPLIERS)) return String(withMultipliers(words));
      const pair = hundredsPair(words);
      return pair === null ? run : String(pair);
    })
    .replace(/\b(\d{1,2})000\s+(?:n|and|&)\s+(?:a\s+)?half\b/g, (_, n: string) =>
      String(Number(n) * 1000 + 500),
    );
}

function withMultipliers(words: string[]): number {
  let total = 0;
  let current = 0;
  for (const word of words) {
    if (/^\d+$/.test(word)) current += Number(word);
    else if (word in EN_UNITS) current += defined(EN_UNITS[word], 'EN_UNITS[word]');
    else if (word in EN_TENS) current += defined(EN_TENS[word], 'EN_TENS[word]');
    else if (word === 'hundred') current = (current || 1) * 100;
    else {
      total += (current || 1) * defined(EN_MULTIPLIERS[word], 'EN_MULTIPLIERS[word]');
      current = 0;
    }
  }
  return total + current;
}

/** "twenty two fifty" -> 2250, "nineteen fifty" -> 1950: two numbers from 10 to 99, said in pairs. */
function hundredsPair(words: string[]): number | null {
  const groups: number[] = [];
  for (const word of words) {
    if (/^\d+$/.test(word)) return null;
    const last = groups.length - 1;
    const unit = EN_UNITS[word];
    const previous = groups[last];
    if (unit !== undefined && previous !== undefined && previous >= 20 && previous % 10 === 0 && unit < 10) {
      groups[last] = previous + unit;
    } else groups.push(unit ?? defined(EN_TENS[word], 'EN_TENS[word]'));
  }
  if (groups.length !== 2 || groups.some((g) => g < 10)) return null;
  return defined(groups[0], 'groups[0]') * 100 + defined(groups[1], 'groups[1]');
}

/** The value of a Spanish word below a thousand ("veintitrés", "dieciséis" included), or null. */
function spanishWord(word: string): number | null {
  const plain = word.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  if (plain in ES_WORDS) return defined(ES_WORDS[plain], 'ES_WORDS[plain]');
  const compound = /^(veinti|dieci)(\w+)$/.exec(plain);
  const unit = compound ? ES_WORDS[defined(compound[2], 'unit')] : undefined;
  if (!compound || unit === undefined || unit > 9) return null;
  return (compound[1] === 'veinti' ? 20 : 10) + unit;
}

/** "dos mil doscientos cincuenta" -> 2250, "mil cien" -> 1100, "3 mil 300" -> 3300; a run under 100 stays. */
function spanishToDigits(text: string): string {
  return text
    .replace(
      /\b(\d{1,2}(?:\.\d{1,2})?)\s*mil\b(?:\s+(\d{1,3})\b(?![.,]\d))?/g,
      (_, thousands: string, rest?: string) =>
        String(Math.round(Number(thousands) * 1000) + Number(rest ?? 0)),
    )
    .replace(ES_RUN, (run) => {
      const words = run.split(/\s+/).filter((word) => word !== 'y');
      let total = 0;
      let current = 0;
      for (const word of words) {
        if (word === 'mil') {
          total += (current || 1) * 1000;
          current = 0;
          continue;
        }
        const value = spanishWord(word);
        if (value === null) return run;
        current += value;
      }
      const value = total + current;
      // "mil gracias" is thanks, not a price: a lone "mil" stays a word.
      return value >= 100 && (words.length > 1 || words[0] !== 'mil') ? String(value) : run;
    });
}

/** "2k4" -> 2400, "2k45" -> 2450, "2.4 k" stays for the amount pattern. */
function shorthandToDigits(text: string): string {
  return text.replace(/\b(\d{1,2})k(\d{1,3})\b/g, (_, thousands: string, rest: string) =>
    String(Number(thousands) * 1000 + Number(rest.padEnd(3, '0'))),
  );
}
