/**
 * Words saying we wrote to the wrong place, and words asking us to stop writing, in English and
 * Spanish. Writing again to a wrong number, a wrong person, someone who left the company, an
 * address that is not for load offers or someone who is not a carrier is unwanted, so those are a
 * stop too; a company that closed or a truck that was sold, with no request, is not.
 */

/** The wrong contact: a stop request in itself. */
export const WRONG_CONTACT: readonly string[] = [
  '\\bwrong\\s+(?:person|number|contact|e-?mail|guy|gal|company|address|people|#|no\\.?(?=\\s|$)|num\\b|cell)',
  '\\bnot\\s+(?:in|a)\\s+(?:the\\s+)?(?:trucking|carrier|freight|transportation)\\b',
  '\\bnot\\s+a\\s+(?:trucking|freight|transport\\w*|carrier)\\s*(?:company|business)?\\b',
  '\\bpersonal\\s+(?:phone|number|cell|e-?mail|account|line)\\b',
  "\\b(?:no\\s+longer|don't|do not|dont)\\s+(?:work|working)\\s+(?:for|at|with|there)\\b|\\bno\\s+longer\\s+(?:with|at|employed)\\b",
  '\\b(?:is|are)?\\s*for\\s+(?:billing|accounting|invoic\\w+|payments?|safety|claims)\\s+only\\b',
  '\\bn[uú]mero\\s+equivocado\\b|\\bse\\s+equivoc\\w*\\s+de\\s+(?:n[uú]mero|persona|correo|contacto)\\b',
  '\\bno\\s+(?:soy|somos)\\s+(?:una?\\s+)?(?:transportistas?|carriers?|empresa\\s+de\\s+transporte|compa[nñ][ií]a\\s+de\\s+transporte|trokeros?|camioneros?)\\b',
  '\\b(?:esta|este)\\s+(?:cuenta|correo|n[uú]mero|celular|cel|tel[eé]fono)\\s+es\\s+personal\\b',
  '\\bya\\s+no\\s+trabajo\\s+(?:en|para)\\b',
  '\\b(?:es|solo\\s+es|es\\s+solo)\\s+para\\s+(?:facturaci[oó]n|cobranza|pagos|contabilidad)\\b',
];

/** Out of the business: the wrong contact, but no request to stop. */
export const CLOSED_DOWN: readonly string[] = [
  '\\bno\\s+longer\\s+(?:in business|hauling|trucking|driving|operating)\\b',
  '\\b(?:closed|shut down|sold)\\s+(?:the|my|our)\\s+(?:company|business|trucks?)\\b',
  '\\bout of business\\b',
  '\\bnot\\s+(?:hauling|trucking|driving|operating)\\s+any\\s*more\\b',
  '\\bcerramos\\s+(?:la\\s+)?(?:empresa|compa[nñ][ií]a)\\b|\\bvend[ií]\\s+(?:mi|el)\\s+(?:cami[oó]n|troca|tr[aá]iler)\\b',
];

/** Asks us to stop writing. "do not call before 8am" only sets calling hours, so it does not count. */
export const STOP_PHRASES: readonly RegExp[] = [
  /\bun-?sub(?:scribe)?\b/,
  /\bopt(?:[\s-])?out\b/,
  /\b(?:remove|delete|take)\s+(?:me|us|my\s+\w+|our\s+\w+|this\s+\w+)\s+(?:off|from|out of)\s+(?:\w+\s+){0,2}(?:list|lists|emails?|texts?|mailing|distribution|contacts?|database|system)\b/,
  /(?<!\b(?:i|we|they)\s)\b(?:do not|don't|dont|never)\s+(?:call|contact|text|email|e-mail|message)\b(?!\s+(?:me\s+|us\s+)?(?:before|after|until|till|between|during|on weekends)\b)/,
  /\b(?:stop|quit|quit it with)\s+(?:calling|contacting|texting|txting|emailing|e-mailing|messaging|sending|spamming|bothering|blowing up)\b/,
  /\bno\s+more\s+(?:e-?mails?|texts?|messages?|calls?|spam)\b/,
  /\blose\s+(?:my|our)\s+number\b/,
  // "please remove me." as a whole request, without naming the list.
  /\bremove\s+(?:me|us|my number|our number)\s*(?:please\s*)?(?:[.!]|$)/,
  // "ya no me escriban", "no me manden más", "quítenme de su lista", "favor de darme de baja".
  /\bya\s+no\s+(?:me|nos)\s+(?:manden|mande|mandes|env[ií]en|env[ií]e|escriban|escriba|escribas|contacten|contacte|llamen|llame|marquen|busquen)\b/,
  /\bno\s+(?:me|nos)\s+(?:manden|mande|env[ií]en|env[ií]e|escriban|escriba|contacten|contacte|llamen|marquen)\s+(?:\w+\s+)?(?:m[aá]s|mensajes|correos|cargas|e-?mails?|textos)(?![a-z\u00e0-\u00ff])/,
  /\b(?:b[oó]rr|qu[ií]t|s[aá]qu|elim[ií]n)(?:en|e|a)?(?:me|nos)\s+de\s+(?:su|sus|la|esta|tu|esa)\s+(?:lista|listas|base|correos|contactos)/,
  /\bdar(?:me|nos)\s+de\s+baja\b|\b(?:den|d[eé]|dame)(?:me|nos)?\s+de\s+baja\b/,
  /\b(?:dejen|deje|dejes)\s+de\s+(?:mandar|enviar|escribir|llamar|molestar)/,
];
