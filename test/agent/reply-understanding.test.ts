import { describe, expect, it } from 'vitest';
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
    ['2400 or 2300 if you can load today', 2400, 'all_in'],
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
    ['we will do 2300 if pickup is before 1400', 2300, 'all_in'],
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
