/**
 * The words carriers use to turn a load down, in English and Spanish, each with its reason.
 */
import { CLOSED_DOWN, WRONG_CONTACT } from './reply-words-contact.js';

/** Why a carrier says it cannot take the load, the most specific first. */
export const UNAVAILABLE_REASONS = [
  'wrong_contact',
  'opt_out',
  'equipment',
  'lane',
  'hours',
  'timing',
  'no_capacity',
  'rate',
  'declined',
] as const;
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

/** Not a letter: Spanish words end in accented letters, which `\b` does not see. */
export const END = '(?![a-z\\u00e0-\\u00ff])';
/** A word, accented letters included. */
export const WORD = '[a-z\\u00e0-\\u00ff]+';

/** Trailer types and gear, English and Spanish. */
export const EQUIPMENT =
  '(?:reefers?|refers?|flatbeds?|flats|dry vans?|vans?|step ?decks?|conestogas?|box trucks?|straight trucks?|hot ?shots?|power only|tankers?|lowboys?|rgns?|dumps?|hoppers?|sprinters?|temp(?:erature)? control(?:led)?(?: equipment| trailers?)?|tarps?|chains?|stakes?|straps?|binders?|load ?locks?|lift ?gates?|hazmat endorsements?|team drivers?|teams|refrigerad[oa]s?|refri(?:s|gerad[oa]s?)?|thermos?|termos?|plataformas?|cajas? secas?|pipas?|tanques?|lonas?)';
const NOT = "(?:don't|do not|dont|doesn't|does not|didn't|never)";
/** A truck, a driver or a unit: what a carrier has or has not free. */
const UNIT_ES =
  '(?:unidad(?:es)?|cami[oó]n(?:es)?|camioneta|trocas?|tr[aá]ileres|tr[aá]iler|cajas?|equipo|chofer(?:es)?|operador(?:es)?|espacio|nada)';
/** Places a carrier may say it does not go to. */
const PLACE =
  '(?:alabama|alaska|arizona|arkansas|california|cali|colorado|connecticut|delaware|florida|georgia|idaho|illinois|indiana|iowa|kansas|kentucky|louisiana|maine|maryland|massachusetts|michigan|minnesota|mississippi|missouri|montana|nebraska|nevada|new\\s+hampshire|new\\s+jersey|jersey|new\\s+mexico|new\\s+york|nyc|ny|nj|north\\s+carolina|north\\s+dakota|ohio|oklahoma|oregon|pennsylvania|rhode\\s+island|south\\s+carolina|south\\s+dakota|tennessee|texas|utah|vermont|virginia|washington|west\\s+virginia|wisconsin|wyoming|canada|mexico|m[eé]xico|the\\s+city|the\\s+northeast|new\\s+england|the\\s+west\\s+coast|the\\s+east\\s+coast|the\\s+border|la\\s+frontera|nueva\\s+york|nueva\\s+jersey|florida)';

/** Words that make a missing trailer a matter of this week, not of the fleet: "no reefers open rn". */
const FOR_NOW = `(?:\\s+(?:${WORD}\\s+){0,2}?(?:open|available|free|right now|rn|today|this week|till|until|disponibles?|libres?|esta semana|hoy|hasta|por (?:el|lo) momento|ahorita|ahora))`;

const alternatives = (list: readonly string[], flags = 'g') => new RegExp(list.join('|'), flags);

/**
 * Phrases saying they cannot take the load, each with its reason. The most specific reason found
 * wins (the order of UNAVAILABLE_REASONS), not the first written: "no tarps on my truck, can't do
 * it" is an equipment refusal, not a plain one.
 */
export const UNAVAILABLE: ReadonlyArray<{ reason: UnavailableReason; pattern: RegExp; rhetorical?: true }> = [
  { reason: 'wrong_contact', pattern: alternatives([...WRONG_CONTACT, ...CLOSED_DOWN]) },
  // "we don't have any reefers", "we only run flatbeds", "no manejamos refrigerado", "puro dry van".
  {
    reason: 'equipment',
    pattern: alternatives([
      `\\b${NOT}\\s+(?:have|run|pull|haul|own|got|do|carry)\\s+(?:any\\s+|a\\s+|an\\s+|the\\s+)?(?:\\w+\\s+)?${EQUIPMENT}\\b(?!${FOR_NOW})`,
      `\\b(?:only|just)\\s+(?:run|have|pull|do|haul|got)\\s+(?:\\w+\\s+){0,2}${EQUIPMENT}\\b`,
      `\\b${EQUIPMENT}\\s+only\\b`,
      `\\bno\\s+${EQUIPMENT}\\b(?!\\s+(?:needed|required|necessary)|\\?|${FOR_NOW})`,
      "\\b(?:won't|will not|doesn't|does not|wouldn't)\\s+fit\\b(?!\\s+(?:in(?:to)?\\s+|with\\s+)?(?:our|my)\\b)",
      // What it hauls: "we don't haul produce", "we don't do team loads", "insurance doesn't cover alcohol".
      `\\b${NOT}\\s+(?:haul|carry|take|do|move|pull)\\s+(?!it\\b|that\\b|this\\b|them\\b|the\\s+load|this\\s+one|that\\s+one|one\\b|any\\s*more\\b|loads?\\b|the\\s+\\w+\\s+one\\b)(?:\\w+\\s+)?(?:\\w+)\\b`,
      "\\binsurance\\s+(?:doesn't|does not|won't|will not)\\s+cover\\b",
      '\\bnot\\s+(?:hazmat|tanker|twic)\\s+(?:certified|endorsed|qualified)\\b|\\bnot\\s+(?:set\\s+up|equipped)\\s+(?:for|to)\\b',
      `\\bno\\s+(?:manejamos|manejo|traemos|traigo|tenemos|tengo|jalamos|jalo|hacemos|hago|contamos con)\\s+(?:${WORD}\\s+)?${EQUIPMENT}${END}(?!${FOR_NOW})`,
      `\\b(?:solo|s[oó]lo|puro|pura|nom[aá]s|nada m[aá]s)\\s+(?:${WORD}\\s+)?${EQUIPMENT}${END}`,
      `\\bno\\s+(?:tengo|tenemos|tiene|traigo)\\s+(?:el\\s+)?(?:permiso|endoso|licencia)\\b`,
      "\\b(?:not|aren't|we're not|were not|i'm not)\\s+(?:hazmat|food\\s+grade|twic|tanker)\\b(?!\\s+(?:load|loads|freight)\\b)",
      '\\bno\\s+(?:hazmat|tanker|twic)\\s+(?:endorsement|cert\\w*|card)\\b',
      '\\btoo\\s+(?:heavy|tall|wide|long|big)\\s+for\\s+(?:us|me|my|our)\\b|\\b(?:over|too)\\s*weight\\s+for\\s+(?:us|me|my|our)\\b',
      "\\b(?:our|my)\\s+(?:trailers?|trucks?|reefers?|vans?)\\s+(?:are|is)\\s+(?:only\\s+)?(?:\\d{2}'|\\d{2}\\s*(?:ft|footers?)|too\\s+(?:small|short))",
      `\\b(?:no\\s+(?:traemos|tenemos|tengo|manejamos|hacemos)|no\\s+somos)\\s+(?:hazmat|material\\s+peligroso|grado\\s+alimenticio)${END}`,
    ]),
  },
  // "not my lane", "don't go to texas", "we stay local", "too far for us", "no cubrimos jersey".
  {
    reason: 'lane',
    pattern: alternatives([
      '\\bnot\\s+(?:my|our)\\s+(?:lanes?|area|region)\\b',
      `\\b${NOT}\\s+(?:go|run|service|serve|travel|haul|deliver|head|do)\\s+(?:to|into|that\\s+(?:lane|way|area|direction)|this\\s+(?:lane|way)|there|down\\s+there|out\\s+there)\\b`,
      `\\b${NOT}\\s+(?:go|service|serve|travel|deliver|head)\\s+(?!it\\b|that\\b|this\\b|the\\b|any\\b)[a-z]+\\b`,
      '\\bout\\s+of\\s+(?:my|our|the)\\s+way\\b',
      '\\bstay\\s+(?:local|regional|in\\s+(?:the\\s+)?\\w+|close\\s+to\\s+home)\\b',
      '\\bnot\\s+(?:going|headed|heading|running)\\s+(?:that|this)\\s+way\\b',
      '\\bno\\s+(?!thanks\\b|thank\\b|deal\\b)[a-z]+\\s+for\\s+(?:us|me)\\b',
      '\\bonly\\s+(?:do|run|go|haul)\\s+(?:intrastate|local|regional|in\\s+\\w+)\\b',
      '\\btoo\\s+far\\b',
      '\\b(?:outside|out of)\\s+(?:of\\s+)?(?:our|my)\\s+(?:area|region|lanes?|radius|range|network)\\b',
      '\\b(?:fit|fits)\\s+(?:in(?:to)?\\s+|with\\s+)?(?:our|my)\\s+(?:network|lanes?|routes?|area|operation)\\b',
      '\\bwrong\\s+direction\\b',
      `\\bno\\s+(?:cubrimos|cubro|trabajamos|trabajo|vamos|voy|entramos|entro|corremos|corro|subimos|subo|bajamos|bajo|llegamos|llego|cargamos)\\s+(?:para|a|hacia|en|por|rumbo|pa)${END}`,
      `\\bno\\s+(?:cubrimos|cubro)\\s+(?!eso|esa|ese|la\\s+carga)[a-z\\u00e0-\\u00ff]+`,
      `\\b(?:no\\s+es|fuera\\s+de)\\s+(?:mi|nuestra|nuestro)\\s+(?:ruta|zona|[aá]rea|regi[oó]n)${END}`,
      '\\b(?:muy|queda muy|est[aá] muy)\\s+lejos\\b',
      `\\b(?:${NOT}|won't|wont|not)\\s+(?:do|go|going|run|running|touch|take|haul|cover|deliver|service|head(?:ed|ing)?)\\s+(?:to\\s+|into\\s+|in\\s+|up\\s+to\\s+|down\\s+to\\s+)?${PLACE}${END}`,
      `\\bno\\s+${PLACE}${END}(?!\\s+(?:loads?|freight)\\s+(?:needed|required))`,
      `\\b(?:lane|area|direction|region|route|destination|state)\\s+(?:doesn't|does not|won't|isn't|is not)\\s+(?:work|good|a\\s+fit)\\b`,
      `\\b${NOT}\\s+(?:go|run|do|service|haul)\\s+(?:east|west|north|south|up\\s+north|down\\s+south|out\\s+west|back\\s+east|the\\s+(?:northeast|northwest|southeast|southwest|west\\s+coast|east\\s+coast|midwest))\\b`,
      "\\b(?:can't|cannot|won't|no)\\s+(?:get\\s+)?(?:a\\s+)?(?:reload|backhaul|load\\s+(?:back|out))\\b|\\bno\\s+freight\\s+(?:back|out\\s+of\\s+there)\\b|\\bdead\\s*zone\\b",
      '\\b(?:local|regional|intrastate)\\s+only\\b|\\bonly\\s+(?:run|do|go)\\s+(?:\\w+\\s+){0,3}(?:lanes?|states?|area)\\b',
      `\\bno\\s+(?:cruzamos|cruzo|entramos\\s+a|vamos\\s+a)${END}|\\bno\\s+(?:es\\s+)?(?:nuestra|mi)\\s+(?:zona|ruta)${END}|\\b(?:solo|nom[aá]s|s[oó]lo)\\s+(?:trabajamos|corremos|hacemos|cubrimos)\\s+(?:en\\s+)?${WORD}`,
    ]),
  },
  // Hours of service: "out of hours", "on a 34 hour reset", "no hours left", "sin horas".
  {
    reason: 'hours',
    pattern: alternatives([
      '\\bout\\s+of\\s+(?:hours|hrs|drive time|driving hours)\\b',
      '\\b34[\\s-]*(?:hours?|hrs?|hr)?\\s*(?:reset|restart)\\b',
      '\\bon\\s+(?:his|her|their|my|a|the)\\s+(?:\\d+\\s*(?:hours?|hrs?|hr)\\s+)?(?:reset|break)\\b',
      '\\bno\\s+(?:hours|hrs)\\s+(?:left|available)\\b',
      "\\bhos\\s+(?:won't|will not|doesn't|does not)\\b",
      '\\b(?:hours|clock)\\s+(?:ran|run|is|are)\\s+out\\b',
      '\\b(?:hours|clock|hos)\\s+(?:are|is)\\s+(?:up|done|maxed)\\b|\\bon\\s+(?:his|her|my|a|their)\\s+(?:10|ten|34)\\b|\\bneeds?\\s+(?:a|his|her)\\s+(?:reset|break|34)\\b|\\b(?:out\\s+of|no)\\s+(?:drive|driving)\\s+(?:time|hours)\\b',
      '\\bsin\\s+horas\\b|\\bno\\s+(?:me|le|nos)\\s+(?:quedan|alcanzan)\\s+(?:las\\s+)?horas\\b|\\bse\\s+(?:me|le|nos)\\s+acabaron\\s+las\\s+horas\\b',
    ]),
  },
  // The date or time does not work: "can't make that pickup", "too early", "no alcanzo".
  {
    reason: 'timing',
    pattern: alternatives([
      "\\b(?:can't|cannot|can not|cant|won't|unable to)\\s+make\\s+(?:that|the|this|it\\s+(?:by|on|in time|for))\\s*(?:pick\\s?up|pu|date|time|appointment|appt|window|delivery)?\\b",
      '\\btoo\\s+(?:late|early|soon)\\b',
      '\\b(?:days?|hours?)\\s+late\\b',
      '(?<!\\d\\s*(?:k|mil|dlls)?\\s*)\\bno\\s+(?:alcanzo|alcanzamos|llego|llegamos)\\b',
      `\\bmuy\\s+(?:pronto|temprano|tarde)${END}`,
      "\\b(?:date|day|time|timing|pickup|pick\\s+up|pu|delivery|appointment|appt|window)\\s+(?:doesn't|does not|won't|isn't|is not)\\s+(?:work|good)\\b",
      "\\b(?:can't|cannot|cant|won't|wont|unable to|not able to)\\s+(?:get|be)\\s+(?:there|to\\s+(?:the\\s+)?(?:shipper|pickup))\\s+(?:in\\s+time|by|on\\s+time|until|till|before|that\\s+(?:early|soon|fast))\\b|\\b(?:can't|cannot|cant)\\s+do\\s+same\\s+day\\b|\\bneed\\s+more\\s+(?:lead\\s+time|notice)\\b",
      "\\b(?:won't|wont|can't|cant|not\\s+gonna)\\s+make\\s+it\\s+(?:in\\s+time|on\\s+time|by|there)\\b|\\bshort\\s+notice\\b|\\bnot\\s+enough\\s+(?:time|notice|lead\\s+time)\\b|\\btoo\\s+tight\\b",
      `\\bno\\s+(?:llego|llegamos|alcanzo|alcanzamos)\\s+a\\s+(?:tiempo|cargar|la\\s+cita)${END}|\\bmuy\\s+(?:justo|apretado)${END}`,
    ]),
  },
  // No truck: "no trucks", "booked", "all covered", "got covered", "ya está cubierto", "no tengo unidad".
  {
    reason: 'no_capacity',
    pattern: alternatives([
      '\\bno\\s+(?:\\w+\\s+)?(?:trucks?|capacity|equipment|drivers?|units?|power)\\b(?:\\s+available)?',
      `\\b${NOT}\\s+have\\s+(?:a|any|an|one|anything)?\\s*(?:\\w+\\s+)?(?:trucks?|drivers?|equipment|capacity|open|available)\\b`,
      '\\b(?:nothing|not|none)\\s+(?:\\w+\\s+)?(?:available|open)\\b',
      "\\b(?:we're|we are|were|i'm|i am|im|all|fully|already|totally|completely|pretty)\\s+(?:all\\s+|fully\\s+|already\\s+)?(?:booked|full|covered|committed)\\b",
      // "booked for the week", but not "we booked it", "get it booked" or "3875 and it's booked".
      "(?<!\\b(?:get|got|have|had|we|i|we've|i've|it|it's|its|is|be)\\s+)\\bbooked\\b(?!\\s+(?:it|this|that|the\\s+load))",
      `\\b(?:trucks?|drivers?|units?|fleet|${EQUIPMENT})\\s+(?:are|is)\\s+(?:all\\s+)?(?:committed|booked|covered|taken|busy|tied up|loaded|down)\\b`,
      '\\b(?:got|already|been|just)\\s+(?:re)?loaded\\b|\\b(?:truck\\s+|just\\s+)?got\\s+covered\\b',
      '\\b(?:all\\s+)?(?:my\\s+|our\\s+)?(?:trucks?|drivers?)\\s+(?:are\\s+|is\\s+)?(?:out|gone|dispatched|on the road)\\b',
      '\\btry\\s+(?:me|us)\\s+(?:again\\s+)?(?:next|later|tomorrow|another)\\b',
      '\\b(?:broke|broken)\\s+down\\b|\\bin\\s+the\\s+shop\\b|\\bdown\\s+for\\s+(?:repairs?|maintenance)\\b',
      '\\bmiles\\s+(?:away|out|deadhead)\\b[^.?!\\n]*\\b(?:sorry|no)\\b|\\bdeadhead\\b[^.?!\\n]*,\\s*(?:no|sorry)\\b',
      '\\bnot\\s+(?:this|ths|dis)\\s+week\\b|\\bnot\\s+(?:today|rn|right now)\\s*[.!]*$',
      "\\b(?:i'm|im|we're|i am|we are)\\s+(?:stuck\\s+|still\\s+|out\\s+|up\\s+|down\\s+)?in\\s+[a-z]+(?:\\s+[a-z]+)?\\s+(?:all\\s+week|till|until|through|thru)\\b",
      `\\bno\\s+(?:tengo|tenemos|hay|contamos\\s+con|traigo|traemos|cuento\\s+con)\\s+(?:la\\s+|el\\s+|una?\\s+|ning[uú]n\\w*\\s+)?${UNIT_ES}${END}`,
      `\\bno\\s+${EQUIPMENT}${FOR_NOW}`,
      `\\bno\\s+(?:tengo|tenemos|contamos\\s+con|traigo)\\s+(?:${WORD}\\s+){0,2}${EQUIPMENT}${FOR_NOW}`,
      `\\b(?:ya\\s+)?(?:est[aá]|estamos|estoy|qued[oó])\\s+(?:cubiert[oa]s?|llen[oa]s?|ocupad[oa]s?|booked)${END}`,
      `\\bya\\s+(?:la\\s+)?(?:cubrimos|cubr[ií]|tenemos\\s+carga|tengo\\s+carga|me\\s+cargaron|nos\\s+cargaron)${END}`,
      '\\bunavailable\\b|\\bshort\\s+(?:on\\s+)?(?:drivers|trucks)\\b|\\b(?:no\\s*one|nobody|nothing)\\s+to\\s+send\\b|\\b(?:took|taking|on|got)\\s+another\\s+load\\b|\\balready\\s+(?:have|got)\\s+(?:a\\s+)?load\\b',
      '\\b(?:sold\\s+out|at\\s+capacity|maxed\\s+out|slammed|swamped|spoken\\s+for|tied\\s+up)\\b|\\bno\\s+(?:availability|room|one|body|empties)\\b|\\bnobody\\s+(?:available|free|open)\\b',
      "\\b(?:don't|dont|do not)\\s+have\\s+(?:any(?:one|body)|some(?:one|body)|a\\s+(?:free|open|spare))\\b|\\bout\\s+of\\s+(?:trucks|drivers|equipment)\\b",
      "\\b(?:driver|drivers|he|she)\\s+(?:is|are|'s)\\s+(?:off|out\\s+sick|sick|on\\s+vacation|on\\s+home\\s+time|home)\\b|\\bnot\\s+empty\\s+(?:till|until|before)\\b",
      "\\b(?:we're|were|we are|i'm|im|i am)\\s+(?:already\\s+|all\\s+)?(?:loaded|spoken for|tapped out|out(?!\\s+of\\b))\\b|\\bnot\\s+till\\s+next\\s+week\\b|\\bnothing\\s+(?:open|free|empty|left)\\b",
      `\\b(?:sin|no\\s+(?:hay|tengo|tenemos)\\s+)(?:disponibilidad|unidades|camiones|equipo|choferes)${END}|\\bno\\s+(?:estamos|estoy)\\s+disponibles?${END}`,
      `\\bya\\s+(?:la\\s+)?(?:tom[eé]|tomamos|agarr[eé]|agarramos)\\s+otra${END}|\\bya\\s+(?:cargu[eé]|cargamos|estoy\\s+cargado|estamos\\s+cargados)${END}|\\b(?:descompuest[oa]|en\\s+el\\s+taller|en\\s+reparaci[oó]n)${END}`,
      '\\bse\\s+(?:me|nos)\\s+fue\\s+a\\s+otra\\s+carga\\b|\\b(?:todo|todos|todas)\\s+ocupad[oa]s\\b',
    ]),
  },
  // The price: "too cheap", "not for 2000", "5800?? for 2000 miles", "muy barato, no sale".
  {
    reason: 'rate',
    pattern: alternatives([
      '\\btoo\\s+(?:cheap|low|light)\\b|\\bcheap\\s+(?:freight|load|rate)\\b',
      '\\bnot\\s+for\\s+(?:that|this|\\$?\\d)',
      "\\b(?:won't|will not|doesn't|does not)\\s+(?:even\\s+)?cover\\s+(?:the\\s+|my\\s+|our\\s+)?(?:fuel|costs?|expenses)\\b",
      '\\bnot\\s+(?:at|for)\\s+(?:that\\s+(?:rate|price)|\\$?\\d)',
      '\\b(?:below|under)\\s+(?:my|our)\\s+(?:rate|minimum|min)\\b',
      '\\bcon\\s+(?:los\\s+|esos\\s+)?\\$?\\d[\\d,.]*\\s*(?:k|mil|dlls)?\\s+no\\s+(?:alcanzo|alcanza|alcanzamos|sale|me\\s+sale|salgo)\\b',
      `\\b(?:muy|bien|demasiado)\\s+(?:barat[oa]|baj[oa])${END}|\\bpierdo\\s+(?:dinero|lana)\\b|\\bperder[ií]a\\s+dinero\\b`,
      `\\bno\\s+(?:me\\s+|nos\\s+)?(?:sale|salen|conviene|costea|alcanza)${END}|\\bni\\s+para\\s+el\\s+diesel\\b`,
      "\\b(?:low\\s*ball|lowball|below\\s+(?:market|cost)|under\\s+market|not\\s+worth\\s+it|doesn't\\s+pay\\s+enough|don't\\s+pay\\s+enough|(?:is|that's|thats)\\s+a\\s+joke|not\\s+even\\s+close|need\\s+more\\s+money|pays?\\s+too\\s+little)\\b",
      "\\b(?:can't|cannot|cant|won't|not\\s+gonna)\\s+(?:do|run|haul|move|take)\\s+(?:it\\s+)?(?:for|at)\\s+(?:that|this|those|these)\\b(?!\\s+(?:date|day|time))",
      "\\b(?:rate|price|pay|money|number)\\s+(?:doesn't|does not|won't|isn't|is not)\\s+(?:work|good|enough)\\b|\\b(?:rate|price|pay)\\s+is\\s+(?:too\\s+|way\\s+too\\s+|pretty\\s+|kinda\\s+)?(?:low|light|cheap|bad)\\b",
      `\\b(?:muy\\s+poco|muy\\s+bajo|est[aá]\\s+bajo|no\\s+(?:me\\s+)?da|no\\s+(?:me\\s+)?costea)${END}`,
    ]),
  },
  // Our figure met with disbelief, a question that is no question: "2000??", "5800 por 2 mil millas?".
  {
    reason: 'rate',
    pattern: /\d[\d,.]*k?\s*\?{2,}|\b(?:for|por)\s+\d[\d,.]*\s*(?:k\s+|mil\s+)?(?:miles|millas)\s*\?/g,
    rhetorical: true,
  },
  // A plain no.
  {
    reason: 'declined',
    pattern: alternatives(
      [
        "\\b(?:can't|cannot|can not|cant|won't|unable to|not able to)\\s+(?:do|cover|take|haul|run|make|handle|help)\\b(?!\\s+(?:it\\s+)?(?:\\$?\\d|for\\b|at\\b))(?:\\s+(?:it|that|this|one|the load|this load|that load|this one|that one|them))?",
        '\\bnot\\s+interested\\b',
        '\\bno\\s+(?:thanks|thank\\s+you|thx|ty|deal)\\b',
        "\\b(?:i'll|we'll|will|gonna|going to|i|we|have to|got to|gotta|must)?\\s*pass\\b(?!\\s+through)",
        '(?:,|\\.|\\blol|\\blmao)\\s*(?:no|nope|nah)[.!]*$',
        "\\b(?:doesn't|does not|won't|will not|wouldn't)\\s+work\\s+(?:for\\s+(?:us|me|you)|out)\\b|\\b(?:that|it|this)\\s+(?:doesn't|does not|won't|will not)\\s+work\\b",
        '\\banswer\\s+is\\s+(?:still\\s+)?no\\b',
        "\\bno\\s+(?:sir|ma'am|way|dice)\\b|\\bnot\\s+(?:at\\s+this\\s+time|right\\s+now|happening|feasible)\\b|\\b(?:another|some\\s+other)\\s+time\\b|\\b(?:have\\s+to|gotta|got\\s+to|gonna|will|i'll|we'll)\\s+(?:say\\s+no|skip)\\b|\\bskip\\s+(?:this|that)\\s+one\\b",
        "\\b(?:that's|thats|it's|its)\\s+a\\s+no\\b|\\bdon't\\s+think\\s+(?:so|we\\s+can|i\\s+can)\\b|\\b(?:don't|dont|do\\s+not)\\s+want\\s+(?:it|that|this|the\\s+load)\\b|\\b(?:sorry|unfortunately)\\s*,?\\s*(?:we|i)?\\s*(?:can't|cant|cannot)\\s*[.!]*$",
        `\\bpero\\s+no${END}[.!]*$|\\bno\\s+(?:me|nos)\\s+sirve${END}|\\bno\\s+(?:la|lo)\\s+(?:quiero|queremos|tomo|tomamos|puedo|podemos)${END}|\\bno\\s+(?:estoy|estamos)\\s+interesad[oa]s?${END}|\\bno\\s+por\\s+ahora${END}|\\bno\\s+creo${END}`,
        '\\b(?:hard\\s+pass|no\\s+can\\s+do|no\\s+go|not\\s+gonna\\s+(?:work|happen)|not\\s+for\\s+(?:us|me)|not\\s+a\\s+(?:fit|good\\s+fit)|no\\s+bueno|negative|sit\\s+this\\s+one\\s+out|not\\s+this\\s+time|maybe\\s+next\\s+time|next\\s+time)\\b',
        "\\b(?:we|i)\\s+(?:will|'ll|must|have\\s+to|need\\s+to|will\\s+have\\s+to)\\s+(?:respectfully\\s+)?decline\\b|\\b(?:respectfully|regretfully|politely)\\s+decline\\b|\\bunable\\s+to\\s+(?:accept|assist|commit|quote)\\b|\\b(?:can't|cannot|won't)\\s+(?:accept|swing|make\\s+it\\s+work|commit)\\b|\\bwon't\\s+be\\s+able\\s+to\\b",
        "^(?:i'm|im|we're|were|i am|we are)\\s+good(?:\\s+thanks?|\\s+thx|\\s+ty)?[.!]*$|\\b(?:we're|were|i'm|im)\\s+(?:good|all\\s+set)\\s*,?\\s*(?:thanks|thank\\s+you|thx|ty)\\b",
        `\\b(?:ahorita|ahora|por\\s+ahora|por\\s+el\\s+momento|esta\\s+vez|hoy)\\s+no${END}|\\bno\\s+se\\s+va\\s+a\\s+poder\\b|\\bno\\s+(?:va\\s+a\\s+)?(?:poder|podremos|podr[eé])${END}|\\bmejor\\s+no${END}|\\bno\\s+hay\\s+(?:chance|manera|forma)${END}|\\bno\\s+me\\s+late${END}`,
        `\\bno\\s+(?:puedo|podemos|me\\s+interesa|nos\\s+interesa|gracias|me\\s+queda|nos\\s+queda|se\\s+puede|paso|pasamos)${END}`,
        `\\b(?:paso|pasamos)\\s*(?:,\\s*gracias)?[.!]*$`,
        '^(?:no|nope|nah)\\b[.!,]*',
      ],
      'gm',
    ),
  },
];
