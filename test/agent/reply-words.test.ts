import { describe, expect, it } from 'vitest';
import { readAvailability } from '../../src/modules/agent/reply-availability.js';
import { askedTopics } from '../../src/modules/agent/reply-questions.js';
import { asksToStopContact } from '../../src/modules/agent/reply-stop.js';
import { understandReply } from '../../src/modules/agent/reply-understanding.js';

// The words of the rule-based reader: availability and its reason, stop requests and questions,
// in English and Spanish. Pure: no database, no context beyond the text.
const read = (text: string) => readAvailability(text.toLowerCase());
const verdict = (text: string) => {
  const r = read(text);
  return r.available === null ? 'unknown' : r.available ? 'available' : (r.reason ?? 'no reason');
};

describe('stop requests', () => {
  it.each([
    'STOP',
    'unsub',
    'pls quit texting this number',
    'ya no me escriban por favor',
    'no me manden más cargas',
    'quítenme de su lista',
    'favor de darme de baja',
    'wrong # sorry',
    'you have the wrong person, I am a dentist',
    'número equivocado',
    'this inbox is for billing only, send loads to ops@',
    'I no longer work for that company',
    'esta cuenta es personal',
  ])('%s is a stop', (text) => {
    expect(asksToStopContact(text.toLowerCase())).toBe(true);
  });

  it.each([
    'we closed the company in May',
    'call me, I don\u2019t text rates'.replace('\u2019', "'"),
    'who gave you this number?',
    'no truck stop parking at the receiver?',
    'do not call before 9am please',
    'no gracias',
  ])('%s is no stop', (text) => {
    expect(asksToStopContact(text.toLowerCase())).toBe(false);
  });

  it('a stop is a no with opt_out, a wrong number a no with wrong_contact', () => {
    expect(understandReply('no me manden más mensajes')).toMatchObject({
      stop_contact: true,
      available: false,
      unavailable_reason: 'opt_out',
    });
    expect(understandReply('wrong number buddy')).toMatchObject({
      stop_contact: true,
      unavailable_reason: 'wrong_contact',
    });
  });
});

describe('availability and its reason', () => {
  it.each([
    ['no tenemos unidades disponibles esta semana', 'no_capacity'],
    ['ya está cubierto, gracias', 'no_capacity'],
    ['my flatbed is down for repairs until monday', 'no_capacity'],
    ['sorry, no vans open right now', 'no_capacity'],
    ['no manejamos refrigerado, puro seco', 'equipment'],
    ["we don't have chains for steel", 'equipment'],
    ['no cubrimos florida', 'lane'],
    ["we don't go to NYC", 'lane'],
    ['that lane does not work for us', 'lane'],
    ['muy barato, no me sale', 'rate'],
    ['1800?? for that many miles', 'rate'],
    ['no me interesa, gracias', 'declined'],
    ['our answer is still no', 'declined'],
  ])('%s -> %s', (text, reason) => {
    expect(verdict(text)).toBe(reason);
  });

  it.each([
    'tengo troca vacía en el valle',
    'le entro, mándeme la rate con',
    '25 and its yours',
    'make it 21 n we good',
    'afirmativo',
    'can you do 2.1?',
    "no trucks today but if you get it to 2500 i'll find a driver",
  ])('%s is a yes', (text) => {
    expect(verdict(text)).toBe('available');
  });

  it.each(['Out of the office until Monday, available by phone for emergencies', 'let me check'])(
    '%s says nothing yet',
    (text) => {
      expect(verdict(text)).toBe('unknown');
    },
  );

  it('a carrier still asking its driver is not yet a yes, even with a price', () => {
    expect(read('probably 2200, gotta ask my driver').checking).toBe(true);
    expect(read('déjeme checar con el chofer').checking).toBe(true);
  });
});

describe('another load or another day', () => {
  it.each([
    ['cant do tues, weds 1900', 'timing'],
    ['el lunes no puedo, el martes sí', 'timing'],
    ['2100 if the shipper can push it a day', 'timing'],
    ['nothing on the 12th, the 13th works', 'no_capacity'],
    ['5512 2100, 5504 no', 'declined'],
    ['only the reno one, 1700', 'declined'],
    ['la de fresno sí, la de reno no', 'declined'],
  ])('%s turns this load down: %s', (text, reason) => {
    const r = read(text);
    expect(r).toMatchObject({ available: false, reason, elsewhere: true });
  });

  it('the lowest of a message\u2019s load numbers is the one read for', () => {
    expect(read('5504 2100, 5512 no').elsewhere).toBe(false);
  });

  it('a bare figure turned down is our price, not a load', () => {
    expect(read('2850 no. 3k firm').elsewhere).toBe(false);
  });

  it('a caller that knows which load a clause names decides', () => {
    const text = 'la de reno no, la de fresno en 1700';
    const referent = (start: number, end: number) => {
      const clause = text.slice(start, end);
      return clause.includes('fresno') ? 'this' : clause.includes('reno') ? 'other' : null;
    };
    expect(readAvailability(text, referent).elsewhere).toBe(false);
    expect(readAvailability(text).elsewhere).toBe(true);
  });

  it('a price for another load or day is no price for this one', () => {
    expect(understandReply('cant do wed. thu 2400')).toMatchObject({
      rate: null,
      available: false,
      unavailable_reason: 'timing',
    });
  });
});

describe('questions', () => {
  it.each([
    ['¿cuánto pesa y qué lleva?', ['weight', 'commodity']],
    ['¿lleva lona?', ['tarps']],
    ['¿es con cita?', ['appointment']],
    ['¿sigue disponible?', ['still_open']],
    ['¿a qué hora carga y dónde?', ['pickup_time', 'location']],
    ['¿tiene que cruzar la frontera?', ['location']],
    ['hw much weight n is it hazmat', ['weight', 'hazmat']],
    ['is it floor loaded or on pallets?', ['unloading']],
    ['drop or live?', ['drop_and_hook']],
    ["got a 26' box truck, is that ok?", ['equipment']],
    ['2300 works, but I want to confirm the shipper hours first', ['pickup_time']],
  ])('%s asks %j', (text, topics) => {
    expect([...askedTopics(text.toLowerCase(), false)].sort()).toEqual([...topics].sort());
  });

  it('a complaint about our figure asks nothing', () => {
    expect(askedTopics('1900 for 1100 miles?', false)).toEqual([]);
    expect(askedTopics('lumper 300?? come on', false)).toEqual([]);
  });
});
