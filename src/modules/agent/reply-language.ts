/**
 * The language a carrier wrote in, from its own words (the quoted thread is ours, in English):
 * Spanish when more of its words are Spanish-only than English-only. Spanglish counts as Spanish,
 * a bare figure or an emoji as English.
 */

export type Language = 'en' | 'es';

const SPANISH = new Set(
  (
    'la el los las de del en es y o que qué por para con muy está esta están sí se le les te mis su sus un una unos pero ni va pues hay ' +
    'porfa favor gracias hola buen buenas buenos buenas días día número todo toda incluido dólares dlls afirmativo correcto confirmado ' +
    'confirmo quedamos ándale disculpe milla millas unidad unidades camión camiones troca caja carga cargas tengo tenemos tiene hago hacemos ' +
    'muevo puedo podemos alcanza alcanzo sale baja lista nada nomás sólo cuánto cuántas cuántos cuál dónde cuando cuándo lunes martes ' +
    'miércoles jueves viernes sábado domingo mañana hoy semana otra otro otras otros así bien mal ya aquí allá equivocado saludos atte ' +
    'usted ustedes nos manden escriban mándeme bórrenme chofer operador flete lonas tarimas cita descarga perdón oiga jefe mil dos tres cuatro cinco seis siete ocho nueve diez cien ciento doscientos trescientos cuatrocientos quinientos seiscientos setecientos ochocientos novecientos cincuenta'
  ).split(' '),
);
const ENGLISH = new Set(
  (
    'the an is are was were we i you he she they it this that these those for to of and or can do does did have has had will would ' +
    'could should need truck trucks rate thanks thank please yes with what when where how which our your my their load loads ' +
    'pickup delivery available booked covered driver drivers miles mile sorry call text email stop remove out off just only'
  ).split(' '),
);

/** The language of the carrier's own words, normalized (lower case). */
export function languageOf(ownText: string): Language {
  const words = ownText.match(/\p{L}+/gu) ?? [];
  let spanish = 0;
  let english = 0;
  for (const word of words) {
    if (SPANISH.has(word)) spanish += 1;
    else if (ENGLISH.has(word)) english += 1;
  }
  return spanish > english ? 'es' : 'en';
}
