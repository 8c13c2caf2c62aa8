import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  numberInWords,
  speakable,
  spokenDate,
  spokenDollars,
  spokenReference,
  spokenState,
  spokenTime,
} from '../../src/lib/spoken.js';
import { useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import { openaiModel, useVapiStandIn, vapiEnv } from '../helpers/vapi-stand-in.js';

describe('what the carrier hears', () => {
  it('says dates, times, states, money and load numbers as a dispatcher does', () => {
    expect(spokenDate('2026-07-01')).toBe('Wednesday, July 1st');
    expect(spokenDate('2026-03-22')).toBe('Sunday, March 22nd');
    expect(spokenDate('2026-03-13')).toBe('Friday, March 13th');
    expect(spokenDate('2026-02-30')).toBe('2026-02-30');
    expect(['14:00', '08:30', '12:00', '00:00', '23:05'].map(spokenTime)).toEqual([
      '2 PM',
      '8:30 AM',
      'noon',
      'midnight',
      '11:05 PM',
    ]);
    expect(['TX', 'il', 'ON', 'ZZ'].map(spokenState)).toEqual(['Texas', 'Illinois', 'Ontario', 'ZZ']);
    expect([2300, 2350, 2050, 1000, 950, 12_500, 1].map(spokenDollars)).toEqual([
      'twenty-three hundred dollars',
      'twenty-three hundred fifty dollars',
      'two thousand fifty dollars',
      'one thousand dollars',
      'nine hundred fifty dollars',
      'twelve thousand five hundred dollars',
      'one dollar',
    ]);
    expect(spokenDollars(1899.5)).toBe('eighteen hundred ninety-nine dollars and fifty cents');
    expect(numberInWords(1_250_000)).toBe('one million two hundred fifty thousand');
    expect(spokenReference('LN-4512')).toBe('L N 4 5 1 2');
    expect(
      speakable('Load LN-4512 picks up in Joliet, IL 2026-07-01T08:30:00Z, posted at $2,300.', ['LN-4512']),
    ).toBe(
      'Load L N 4 5 1 2 picks up in Joliet, Illinois Wednesday, July 1st at 8:30 AM, posted at twenty-three hundred dollars.',
    );
    // Text that is not one of those stays as written.
    expect(speakable('Ask for the MC number, then the ETA.')).toBe('Ask for the MC number, then the ETA.');
  });

  describe('on a Vapi call', () => {
    const standIn = useVapiStandIn();
    const t = useTestApp({ env: vapiEnv(standIn) });

    it('speaks the first message and the voicemail; the script keeps the written facts', async () => {
      const { user } = await createTenant(t);
      const loadId = await createLoad(t, user.headers, { load_number: 'LN-7781', posted_rate: 2350 });
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/voice-templates',
        headers: user.headers,
        payload: {
          name: 'Spoken',
          purpose: 'load_booking',
          first_message:
            'Hi, about load {{load_number}} from {{origin_city}}, {{origin_state}} to {{destination_state}} on {{pickup_date}}: {{posted_rate}}.',
          voicemail_message: 'Call back about {{load_number}}, picking up {{pickup_date}}.',
          instructions:
            'Load {{load_number}} picks up {{pickup_date}} in {{origin_state}} at {{posted_rate}}.',
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const call = await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: user.headers,
        payload: {
          phone_number: '+14155550160',
          load_id: loadId,
          call_type: 'LOAD_BOOKING',
          template_id: created.json().id,
        },
      });
      expect(call.statusCode, call.body).toBe(201);
      const { assistant } = standIn.lastCall().body;
      expect(assistant?.firstMessage).toBe(
        'Hi, about load L N 7 7 8 1 from Chicago, Illinois to Texas on Monday, March 2nd: twenty-three hundred fifty dollars.',
      );
      expect(assistant?.voicemailMessage).toBe('Call back about L N 7 7 8 1, picking up Monday, March 2nd.');
      const model = defined(openaiModel(assistant), 'the OpenAI model');
      expect(defined(model.messages?.[0], 'model.messages[0]').content).toMatch(
        /^Load LN-7781 picks up 2026-03-02 in IL at \$2,350\./,
      );
    });
  });
});
