// Size: tables of carrier replies, one case a line; the reader's rules are read off them.
import { describe, expect, it } from 'vitest';
import { CONFIRM_BELOW, type ReadingContext, readReply } from '../../src/modules/agent/reply-reading.js';
import { understandReply } from '../../src/modules/agent/reply-understanding.js';

type Basis = 'all_in' | 'plus_fuel' | 'per_mile';

describe('understandReply: rates', () => {
  // [carrier reply, expected rate, expected basis]
  const rates: Array<[string, number, Basis]> = [
    ['$2,350', 2350, 'all_in'],
    ['2350 all in', 2350, 'all_in'],
    ['can do 2.4k', 2400, 'all_in'],
    ['2,350 + fuel', 2350, 'plus_fuel'],
    ['2.4K', 2400, 'all_in'],
    ['$2400.00', 2400, 'all_in'],
    ['2,350 usd', 2350, 'all_in'],
    ["we'd need 2500", 2500, 'all_in'],
    ['2500 flat', 2500, 'all_in'],
    ['how about 1900?', 1900, 'all_in'],
    ['rate 2100', 2100, 'all_in'],
    ['$1.9k', 1900, 'all_in'],
    ['3k', 3000, 'all_in'],
    ['I can do it for twenty three hundred', 2300, 'all_in'],
    ['two thousand five hundred and we roll', 2500, 'all_in'],
    ['2 grand and she is yours', 2000, 'all_in'],
    ['Two grand, final', 2000, 'all_in'],
    ['twenty-five hundred all in', 2500, 'all_in'],
    ['you posted 2000 but we need 2400', 2400, 'all_in'],
    ['2350 plus fuel', 2350, 'plus_fuel'],
    ['$2,800 + FSC', 2800, 'plus_fuel'],
    ['Hi, re: load #48213 - we can do $2,650 all-in. Thanks', 2650, 'all_in'],
    ['MC 123456 here, truck available, rate is 2200', 2200, 'all_in'],
    ['Empty in Dallas tomorrow 8am, need $1,850', 1850, 'all_in'],
    ["53' van, 42,000 lbs ok, 2700 firm", 2700, 'all_in'],
    ['Call me at 555-123-4567, we can do 3100', 3100, 'all_in'],
    ['pick up 0800 works, $2,100', 2100, 'all_in'],
    ['your 1800 is too low, 2250 and we take it', 2250, 'all_in'],
    ["can't do 2000, can do 2300", 2300, 'all_in'],
    ['Reefer at -10F, 44k lbs, we want 4.2k', 4200, 'all_in'],
    ['It is 850 miles, 2600 is the best I can do', 2600, 'all_in'],
    ['we have 2 trucks, $3,400 each', 3400, 'all_in'],
    ['truck # 512 can do $2400', 2400, 'all_in'],
    ['need $12,500 for this one', 12500, 'all_in'],
    ['we would need 12500 for that lane', 12500, 'all_in'],
    ['1950 + $150 detention after 2 hours', 1950, 'all_in'],
    ['Yes interested. 2,450 USD all inclusive', 2450, 'all_in'],
    ['dispatch here (312) 555-0100 - 2200 on 12/15', 2200, 'all_in'],
    ['Let me know if 1,750 works', 1750, 'all_in'],
    ['bump it from 2000 to 2400 and we good', 2400, 'all_in'],
    ['Hi John, truck is empty in Atlanta GA 30301. Looking for 2,100.', 2100, 'all_in'],
    ['deadhead 120 miles, 2.5k', 2500, 'all_in'],
    ['the rate is 2,250.00 USD', 2250, 'all_in'],
    ['1,200 + fuel surcharge', 1200, 'plus_fuel'],
    ["can't do it for 1500, need 2000", 2000, 'all_in'],
    ['pickup 12-15-2024, 2,000', 2000, 'all_in'],
  ];

  it.each(rates)('%j -> %d (%s)', (text, rate, basis) => {
    const reply = understandReply(text);
    expect(reply.rate).toBe(rate);
    expect(reply.rate_basis).toBe(basis);
    expect(reply.rate_per_mile).toBeNull();
  });

  // [carrier reply, per mile, rate with a 1000-mile load]
  const perMile: Array<[string, number, number]> = [
    ['$2.50/mile', 2.5, 2500],
    ['2.75 a mile', 2.75, 2750],
    ['3.10 per mile', 3.1, 3100],
    ['2.6 rpm', 2.6, 2600],
    ['we run it for $2.40 per loaded mile', 2.4, 2400],
    ['$3/mi and it is yours', 3, 3000],
    ['we charge 3 dollars a mile', 3, 3000],
  ];

  it.each(perMile)('%j -> %d per mile', (text, perMileRate, rate) => {
    const withDistance = understandReply(text, { distance: 1000 });
    expect(withDistance).toMatchObject({ rate, rate_basis: 'per_mile', rate_per_mile: perMileRate });
    const withoutDistance = understandReply(text);
    expect(withoutDistance).toMatchObject({ rate: null, rate_basis: 'per_mile', rate_per_mile: perMileRate });
    expect(understandReply(text, { distance: null }).rate).toBeNull();
  });

  it('rounds a per-mile rate times the distance to whole dollars', () => {
    expect(understandReply('2.65 rpm', { distance: 433 }).rate).toBe(1147);
  });
});

describe('understandReply: numbers that are not rates', () => {
  const notRates: string[] = [
    'load 123456',
    're: load #48213',
    'MC 123456',
    'DOT# 2345678',
    'call me at 555-123-4567',
    '(312) 555-0100',
    'empty near 60601',
    '60601',
    '42,000 lbs',
    '44k lbs',
    'is it 12/15 or 12/16?',
    'pick up 0800',
    'we get there at 14:30',
    'on the 3rd',
    "53' van",
    '48 ft flatbed',
    'our 2024 freightliner is ready',
    'reefer set to -10F',
    '34 degrees',
    'we have 2 trucks',
    'quick pay 3%',
    'what is the weight? 900 miles is far',
    'Dallas, TX 75201',
    'deliver by 1400',
    'ext 1234',
    '$150 detention',
  ];

  it.each(notRates)('%j has no rate', (text) => {
    const reply = understandReply(text);
    expect(reply.rate).toBeNull();
    expect(reply.rate_basis).toBeNull();
    expect(reply.rate_per_mile).toBeNull();
  });

  it('gives no rate when the only figure is the broker posted one', () => {
    expect(understandReply('you posted 2000, too low').rate).toBeNull();
  });
});

describe('understandReply: availability', () => {
  const availability: Array<[string, boolean | null]> = [
    ['have a truck', true],
    ['truck available', true],
    ['we can cover', true],
    ['we can do it', true],
    ['yes interested', true],
    ['empty in Dallas tomorrow', true],
    ['2,400 all in', true],
    ['no trucks', false],
    ['Booked for the week, sorry', false],
    ['no capacity this week', false],
    ["got a truck but can't do 2000", true],
    ['no truck available', false],
    ["we're booked", false],
    ['sorry we are full this week', false],
    ['pass', false],
    ["i'll pass on this one", false],
    ['not interested', false],
    ["can't do it", false],
    ['no thanks', false],
    ['no', false],
    ['no trucks, 2500 maybe next week', false],
    ['no truck today but can cover tomorrow', true],
    ['what is the commodity?', null],
    ['', null],
  ];

  it.each(availability)('%j -> %s', (text, available) => {
    expect(understandReply(text).available).toBe(available);
  });
});

describe('understandReply: stop contact', () => {
  const stops: string[] = [
    'stop',
    'STOP',
    'Stop.',
    'not interested. STOP',
    'please stop',
    'unsubscribe',
    'Un-subscribe',
    'remove me from your list',
    'take us off your list please',
    'do not call',
    "don't call us again",
    'do not contact this number',
    'quit emailing me',
    'no more emails',
    'No more texts!!',
    'stop texting me',
    'please remove me.',
    'lose my number',
  ];

  it.each(stops)('%j asks to stop', (text) => {
    expect(understandReply(text).stop_contact).toBe(true);
  });

  const notStops: string[] = [
    'truck stop',
    'we are at the truck stop on I-40, empty tomorrow',
    'stop #2 is in Joliet',
    '2 stops ok',
    'drop at the second stop',
    'non-stop team run',
    'can do 2400 with the extra stop',
    'Stop off in Memphis is fine',
    'have a truck',
    'stop by the office for the rate con',
    'we booked it, send the rate con',
    'do not call before 8am, text instead',
  ];

  it.each(notStops)('%j does not ask to stop', (text) => {
    expect(understandReply(text).stop_contact).toBe(false);
  });
});

describe('understandReply: whole replies', () => {
  it('reads a typical e-mail', () => {
    expect(
      understandReply(
        "Hello,\n\nRe: Load #48213 Chicago IL 60601 to Dallas TX 75201.\nWe have a 53' reefer empty in Joliet on the 3rd. " +
          'You posted $1,900; we would need $2,350 + fuel.\n\nThanks,\nMike\nMC 123456 | (312) 555-0100',
      ),
    ).toEqual({
      rate: 2350,
      rate_basis: 'plus_fuel',
      rate_per_mile: null,
      available: true,
      unavailable_reason: null,
      stop_contact: false,
      questions: [],
    });
  });

  it('is deterministic', () => {
    const text = 'can do 2.4k, call 555-123-4567';
    expect(understandReply(text)).toEqual(understandReply(text));
  });
});

describe('understandReply: prices that are not firm read no rate', () => {
  it.each([
    '2400 or 2300 if you can load today',
    'we will do 2300 if pickup is before 1400',
    'around 2400',
    '2400-2500',
    'prob 2400 lemme ask my driver',
  ])('%j has no firm rate', (text) => {
    expect(understandReply(text).rate).toBeNull();
  });
});

// A load picking up on a Wednesday, offered with another one picking up on the Thursday.
const context: ReadingContext = {
  load_number: 'PL-7001',
  pickup_date: '2026-06-03',
  posted_rate: 2000,
  our_counter: null,
  confirm_amount: null,
  distance: 900,
  origin: 'Joliet, IL',
  destination: 'Memphis, TN',
  other_loads: [
    {
      load_number: 'PL-7002',
      pickup_date: '2026-06-04',
      posted_rate: 2300,
      origin: 'Joliet, IL',
      destination: 'Nashville, TN',
    },
  ],
};

describe('readReply: the price for this load in its context', () => {
  // [carrier reply, firm rate, tentative rate]
  const readings: Array<[string, number | null, number | null]> = [
    ['can haul it for 2450', 2450, null],
    ['2.5k all in', 2500, null],
    ['twenty four fifty', 2450, null],
    ['dos mil quinientos', 2500, null],
    ['te la dejo en 2 mil 450', 2450, null],
    ['need 25', 2500, null],
    ['2k5 and we roll', 2500, null],
    ['2000?? no way. 2600', 2600, null],
    ['ok 2000 is fine', 2000, null],
    ['2000 is too cheap for memphis', null, null],
    ['around 2400', null, 2400],
    ['2400-2500', null, 2400],
    ['between 24 and 2500', null, 2400],
    ['2400 if it is palletized', null, 2400],
    ['2400 if you can pay in 15 days', 2400, null],
    ['PL-7002 for 2500, PL-7001 no', null, null],
    ['7002 2500. 7001 no', null, null],
    ['the nashville one 2500', null, null],
    ['memphis 2450, nashville 2600', 2450, null],
    ['both for 4800', null, null],
    ['las dos por 4,800', null, null],
    ['thursday i can do 2400', null, null],
    ['wednesday works, 2400', 2400, null],
    ['can do it the next day for 2300', null, null],
    ['2400 but I need to check with my driver', null, 2400],
    ['$2.75/mile', 2475, null],
    ['2.80 por milla', 2520, null],
    ['2400. actually make it 2350', 2350, null],
    ['2300 quick pay or 2400 net 30', 2400, null],
    ['2400 + fuel', 2400, null],
    ['Total $2,550 (linehaul 2,200 + fsc 350)', 2550, null],
    ['can you do 2.4?', null, null],
    ['under 40k lbs I am at 2300, heavier 2500', null, 2300],
    ['2400 for a team, 2100 solo', null, 2400],
    ['1,950, detention 50/hr after 2', 1950, null],
    ['TONU $200', null, null],
    ['la de memphis en 2,450, la de nashville no', 2450, null],
    ['posted 2000? we need 2500', 2500, null],
    ['i can do 2300 if it loads before noon', null, 2300],
    ['bro 2400 firm', 2400, null],
    ['ok 2k works', 2000, null],
    ["I'll take it at 2000", 2000, null],
    ['2000 all in?', null, null],
    ['could you get to 2300?', 2300, null],
    ['no less than 2400', 2400, null],
    ['24 even', 2400, null],
    ['two grand and a half', 2500, null],
    ['le cobro 2400', 2400, null],
    ['2400 más o menos', null, 2400],
    ['entre 23 y 2400', null, 2300],
    ['2400 si me pagan en 7 días', 2400, null],
    ['2400 si no pesa más de 40 mil libras', null, 2400],
    ['el jueves en 2400', null, null],
    ['la 7002 en 2500 y la 7001 en 2400', 2400, null],
    ['06/04 works 2400', null, null],
    ['2,400 net 30 or 2,350 quick pay', 2400, null],
    ['2,400 to 2,600 depending on weight', null, 2400],
    ['I was thinking 2400', null, 2400],
    ['2400 if we can get a reload', null, 2400],
    ['my truck #2400 is empty, rate 2350', 2350, null],
    ['We could do $2,400 on this one, would that work?', 2400, null],
    ['2400. Got a box truck though, is that ok?', null, 2400],
  ];

  it.each(readings)('%j -> rate %s, tentative %s', (text, rate, tentative) => {
    const reading = readReply(text, context);
    expect([reading.rate, reading.tentative_rate]).toEqual([rate, tentative]);
  });

  it('reads an answer to our confirmation question as its amount, a correction as the corrected one', () => {
    const confirming = { ...context, confirm_amount: 2450 };
    expect(readReply('yep', confirming).rate).toBe(2450);
    expect(readReply('Confirmed, send the rate con', confirming).rate).toBe(2450);
    expect(readReply('sí', confirming).rate).toBe(2450);
    expect(readReply('no, I said 2500', confirming).rate).toBe(2500);
    expect(readReply('yes but pickup thursday', confirming).rate).toBeNull();
    expect(readReply('yes', context).rate).toBeNull();
  });

  it('is sure of a plain price, sure enough of a bare one in the load’s range, and less of shorthand or a far one', () => {
    expect(readReply('$2,450 all in', context).confidence).toBe(1);
    expect(readReply('2450', context).confidence).toBeGreaterThanOrEqual(CONFIRM_BELOW);
    expect(readReply('need 25', context).confidence).toBeLessThan(CONFIRM_BELOW);
    expect(readReply('9800', context).confidence).toBeLessThan(CONFIRM_BELOW);
  });

  it('reads no price for a load named by a place it does not know, when the message offered others', () => {
    const laneless: ReadingContext = {
      ...context,
      origin: null,
      destination: null,
      other_loads: [{ load_number: 'PL-7002', pickup_date: '2026-06-04', posted_rate: 2300 }],
    };
    expect(readReply('the jackson one 2500', laneless).rate).toBeNull();
    expect(readReply('la de nashville en 2,500', laneless).rate).toBeNull();
    expect(readReply('2500 per load', laneless).rate).toBe(2500);
    expect(readReply('the jackson one 2500', { ...laneless, other_loads: [] }).rate).toBe(2500);
  });

  it('tells the language', () => {
    expect(readReply('te la hago en 2,450', context).language).toBe('es');
    expect(readReply('can do 2450', context).language).toBe('en');
  });
});

describe('readReply: e-mail around the answer', () => {
  const ours =
    'Hi Bob, we have PL-7001: Joliet, IL to Memphis, TN, pickup Wed 06/03, $2,000 all in, and PL-7002: ' +
    'Joliet, IL to Nashville, TN, pickup Thu 06/04, $2,300. We can do $2,150 on PL-7001.';
  const countered = { ...context, our_counter: 2150 };
  const mails: Array<[string, number | null]> = [
    [`2400 for 7001\n\n-----Original Message-----\nFrom: Envoy <d@e.com>\nSent: Monday\n${ours}`, 2400],
    [
      `We can do $2,450.\n\nBob Smith | Smith Trucking\n1200 Main St, Joliet IL 60431\nO: 815-555-0100 | MC 123456\n\n` +
        `On Mon, Jun 1, 2026 at 8:12 AM Envoy Dispatch <\ndispatch@envoy.com> wrote:\n> ${ours}`,
      2450,
    ],
    [
      `Need $2,500.\n\nGet Outlook for iOS\n________________________________\nFrom: Envoy Dispatch\nSent: Monday\n${ours}`,
      2500,
    ],
    [
      `Hola, se la hago en 2,450.\n\nDe: Envoy <d@e.com>\nEnviado: lunes, 1 de junio de 2026 8:12\nPara: bob\n\n${ours}`,
      2450,
    ],
    [`2,400 all in\n\n--\nBob\nSmith Trucking Inc\nCell 815 555 0100`, 2400],
    [
      'See my answers below.\n\n> PL-7001: Joliet, IL to Memphis, TN, $2,000 all in\nWe can do 2450\n' +
        '> PL-7002: Joliet, IL to Nashville, TN, $2,300\nNo',
      2450,
    ],
    [`yes we have a truck\n\nOn Mon, Jun 1, 2026 at 8:12 AM Envoy <d@e.com> wrote:\n> ${ours}`, null],
    ['Our rate is $2,475.\nThank you,\nBob\nDOT 1234567\nPO Box 4400, Joliet, IL 60431', 2475],
    [
      `2,350\n\nEnviado desde mi iPhone\n\nEl 1 jun 2026, a las 8:12, Envoy <d@e.com> escribió:\n> ${ours}`,
      2350,
    ],
  ];

  it.each(mails)('%j -> %s', (text, rate) => {
    expect(readReply(text, countered).rate).toBe(rate);
  });
});

describe('readReply: the examples of the labelling rule book (the corpus description)', () => {
  // The other load goes to Baltimore here, as in the rule book's "the baltimore one, 2450".
  const baltimore: ReadingContext = {
    ...context,
    other_loads: [
      { load_number: 'PL-7002', pickup_date: '2026-06-04', posted_rate: 2300, destination: 'Baltimore, MD' },
    ],
  };
  // [carrier reply, firm rate, tentative rate, what differs in the context]
  const examples: Array<[string, number | null, number | null, Partial<ReadingContext>?]> = [
    ['2.4k', 2400, null],
    ['2k4', 2400, null],
    ['24', 2400, null],
    ['24 hundred', 2400, null],
    ['twenty-four hundred', 2400, null],
    ['two grand', 2000, null],
    ['2 mil 400', 2400, null],
    ['3.4 mil', 3400, null, { posted_rate: 3100 }],
    ['dos mil cuatrocientos', 2400, null],
    ['2,400 dlls', 2400, null],
    ['can you do 2.4?', null, null],
    ['2300 all in', 2300, null],
    ['need 2600', 2600, null],
    ['at least 2600', 2600, null],
    ['if you can get to 2400 we run it', 2400, null],
    ['can you do 2500?', 2500, null],
    ['meet me at 2275?', 2275, null],
    ['2100 if you cover the lumper', 2100, null],
    ['2850 si me dan quick pay', 2850, null],
    ['2300-2400', null, 2300],
    ['between 19 and 2100', null, 1900],
    ['around 2.3', null, 2300],
    ['2300ish', null, 2300],
    ['ballpark 1600', null, 1600, { posted_rate: 1450 }],
    ['probably 2400, let me ask my driver', null, 2400],
    ['como 3 mil 200 más o menos', null, 3200, { posted_rate: 3100 }],
    ['somewhere in the 2s', null, null],
    ['low 2s', null, null],
    ['2400 or 2300 if it can load today', null, 2400],
    ['1,950 or 2,050 if it has to be tarped', null, 1950],
    ['both for 4500', null, null],
    ['las tres por 5,500', null, null],
    ['ok 2k works', 2000, null],
    ['2150 is fine', 2150, null, { our_counter: 2150 }],
    ['aceptamos los $2,850', 2850, null, { our_counter: 2850 }],
    ['rate is $1,900 + $100 tarp', 1900, null, { posted_rate: 1900 }],
    ['is the 2000 all in?', null, null],
    ['2000?? cheap', null, null],
    ['not for 2000', null, null],
    ['5800 for 2000 miles?', null, null, { posted_rate: 5800 }],
    ['deal', null, null],
    ['book it', null, null],
    ['send the rate con', null, null],
    ['posted rate works', null, null],
    ['sale', null, null],
    ['yes', 2450, null, { confirm_amount: 2450 }],
    ['confirmed', 2450, null, { confirm_amount: 2450 }],
    ['correct', 2450, null, { confirm_amount: 2450 }],
    ["that's right", 2450, null, { confirm_amount: 2450 }],
    ['👍', 2450, null, { confirm_amount: 2450 }],
    ['sí', 2450, null, { confirm_amount: 2450 }],
    ['afirmativo', 2450, null, { confirm_amount: 2450 }],
    ['no i said 2850', 2850, null, { confirm_amount: 2450 }],
    ['typo, 2540', 2540, null, { confirm_amount: 2450 }],
    ['no, 2450 was for the other load', null, null, { confirm_amount: 2450 }],
    ['let me check with my driver', null, null, { confirm_amount: 2450 }],
    ['$2,600 total with tarps', 2600, null],
    ['hazmat add 150 so 2450', 2450, null],
    ['Total $2,550 ($2,200 linehaul + $350 FSC)', 2550, null],
    ['$150 TONU', null, null],
    ['2350 + fuel', 2350, null],
    ['1950 plus FSC', 1950, null],
    ['Linehaul $2,000 + FSC $420', 2000, null],
    ['2450 plus fuel, FSC is 38 cents a mile', 2450, null],
    ["Thursday works, Wednesday doesn't. 2400", null, null],
    ['the baltimore one, 2450', null, null],
    ['no trucks, 2500 maybe next week', null, null],
    ["no trucks right now but if you can bump it to 2300 I'll find a driver", 2300, null],
    ['prob 2300 lemme ask my driver', null, 2300],
    ['could probably squeeze it in for 2600', null, 2600],
    ['2300 if you pay in 2 days', 2300, null],
    ['2400 standard or 2350 if you pay in 2 days', 2400, null],
    ['2400, 2 hrs free time then detention', 2400, null],
    ['2400 plus $50 pallet exchange if they need it', 2400, null],
    ['2400 permits at cost', 2400, null],
    ['2400 plus escorts at cost if needed', 2400, null],
    ["2400 if the height is under 13'6", null, 2400],
    ['2400 if it is 20 pieces or less', null, 2400],
    ['2400 if it delivers friday', null, 2400],
    ['2400 if we also get the baltimore one', null, 2400],
    ['2400 tarped, 2200 untarped', null, 2400],
    ['2400 floor loaded, 2100 palletized', null, 2400],
    ['2150 if we get both', null, 2150],
    ['2400 with a fuel advance of 500', 2400, null],
    ['2400 si me adelantan 500 para diesel', 2400, null],
  ];

  it.each(examples)('%j -> rate %s, tentative %s', (text, rate, tentative, differs) => {
    const reading = readReply(text, { ...baltimore, ...differs });
    expect([reading.rate, reading.tentative_rate]).toEqual([rate, tentative]);
  });
});
