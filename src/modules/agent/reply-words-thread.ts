/**
 * What is left of a reply once the thread and boilerplate below the carrier's own words are gone,
 * in the forms the first cut (reply-text's ownWords) leaves in: Spanish mail headers ("El lun, 27
 * abr 2026 a las 7:02, X escribió:", "-----Mensaje original-----", "De: ... Enviado: ..."), an
 * English "On ... wrote:" line wrapped in two, and legal disclaimers. Our own message quoted there
 * says "do you have a truck", "we can do $3,650": none of it is the carrier speaking.
 */
const BELOW = [
  '^\\s*el\\s[^\\n]{0,200}\\bescribi[oó]:',
  '^\\s*on\\s[^\\n]{0,200}\\n[^\\n]{0,120}\\bwrote:',
  '^\\s*-{2,}\\s*(?:mensaje\\s+original|mensaje\\s+reenviado)\\s*-{2,}',
  '^\\s*de:\\s[^\\n]*\\n\\s*(?:enviado|fecha)(?:\\s+el)?:',
  '^\\s*(?:this|the\\s+information\\s+in\\s+this)\\s+(?:e-?mail|message|communication|transmission)\\b[^\\n]{0,80}\\b(?:confidential|privileged|intended)',
  '^\\s*(?:confidentiality\\s+notice|disclaimer|aviso\\s+de\\s+confidencialidad)\\b',
  '^\\s*(?:este|el\\s+presente)\\s+(?:correo|mensaje)\\b[^\\n]{0,80}\\b(?:confidencial|privilegiada|dirigid[oa])',
].join('|');

const THREAD = new RegExp(BELOW, 'm');

/** The carrier's part of a normalized reply. */
export function carrierPart(text: string): string {
  const start = text.search(THREAD);
  return start >= 0 ? text.slice(0, start) : text;
}
