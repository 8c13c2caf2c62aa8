import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { ALL_TOOLS } from '../../src/modules/calls/voice-tool-declarations.js';
import { useTestApp } from '../helpers/app.js';
import { registryFile } from '../helpers/carrier-factories.js';
import { firstToolAnswer, sendVapi, toolCalls, useVapiStandIn, vapiEnv } from '../helpers/vapi-stand-in.js';
import { placeOfferCall } from './offer-call.js';

/** What a tool's definition says of its parameters, as the assistants' prompts rely on it. */
const definition = z.object({
  name: z.string(),
  kind: z.enum(['function', 'transfer']),
  description: z.string(),
  parameters: z.object({
    type: z.literal('object'),
    properties: z.record(z.string(), z.object({ type: z.string(), description: z.string() })),
    required: z.array(z.string()),
  }),
});

/** The definitions as declared (pinned: a change to what Vapi is told is made here on purpose). */
const before: unknown[] = JSON.parse(
  readFileSync(
    path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/voice-tool-definitions.json'),
    'utf8',
  ),
);

/** A value each declared type takes; topics must name a known topic. */
const sample = (field: string, type: string): unknown =>
  field === 'topics' ? 'weight' : type === 'number' ? 2150 : type === 'boolean' ? true : 'x1';

describe('voice tool arguments: declared once, read with the same schema', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registryFile([]) }) });

  it('declares the same names, descriptions, types and required lists as the hand-written definitions did', () => {
    expect(ALL_TOOLS.map((d) => definition.parse(d))).toEqual(before.map((d) => definition.parse(d)));
  });

  const answer = async (call: Vapi.Call, id: string, name: string, args: unknown) => {
    // Vapi's ToolCall carries its arguments as a JSON string; the older flat form an object.
    const message = toolCalls(call, [{ id, name }]);
    const sent = objectMessage(message);
    const list = sent.toolCallList.map((c) => ({
      ...c,
      function: { ...c.function, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
    }));
    const res = await sendVapi(t, { message: { ...sent, toolCallList: list } });
    expect(res.statusCode, res.body).toBe(200);
    return firstToolAnswer(res);
  };

  it('refuses every tool call missing a required field with a sentence naming it, never a 500', async () => {
    const { call } = await placeOfferCall(t, standIn, '+14155550230');
    let n = 0;
    for (const tool of ALL_TOOLS.filter((d) => d.kind === 'function')) {
      const { properties, required } = tool.parameters;
      const full = Object.fromEntries(
        Object.entries(properties).map(([field, p]) => [field, sample(field, p.type)]),
      );
      for (const field of required) {
        const { [field]: _left, ...without } = full;
        const res = await answer(call, `tc-missing-${n++}`, tool.name, without);
        expect(res.error, `${tool.name} without ${field}`).toMatch(new RegExp(`^Give ${field}\\b`));
        const blank = await answer(call, `tc-blank-${n++}`, tool.name, { ...full, [field]: '  ' });
        expect(blank.error, `${tool.name} with ${field} blank`).toMatch(new RegExp(`^Give ${field}\\b`));
      }
      // With every declared field given, no argument is refused.
      const whole = await answer(call, `tc-full-${n++}`, tool.name, full);
      expect(whole.error ?? '', tool.name).not.toMatch(/^Give |must be/);
    }
  });

  it('reads offer_amount liberally ("2150", "$2,150", extra fields, an object or JSON text) and names it when wrong', async () => {
    const { headers, loadId, call } = await placeOfferCall(t, standIn, '+14155550231');
    const asText = await answer(call, 'tc-a', 'submit_offer', { offer_amount: '$2,150', mood: 'happy' });
    expect(asText.error).toBeUndefined();
    expect(asText.metadata).toMatchObject({ decision: 'counter' });
    const plain = await answer(call, 'tc-b', 'submit_offer', JSON.stringify({ offer_amount: '2150 ' }));
    expect(plain.error).toBeUndefined();
    for (const [id, wrong] of [
      ['tc-c', 'a lot'],
      ['tc-d', -5],
      ['tc-e', 20_000_000],
      ['tc-f', { dollars: 5 }],
    ] as const) {
      const res = await answer(call, id, 'submit_offer', { offer_amount: wrong });
      expect(res.error, JSON.stringify(wrong)).toMatch(/^offer_amount must be/);
    }
    // Arguments that are not JSON read as none.
    expect((await answer(call, 'tc-g', 'submit_offer', '{offer_amount: 2')).error).toMatch(
      /^Give offer_amount: The rate the carrier named/,
    );
    const offers = (
      await t.app.inject({ method: 'GET', url: `/api/v1/offers?load_id=${loadId}`, headers })
    ).json().data;
    expect(offers.map((o: { offer_amount: number }) => o.offer_amount)).toEqual([2150, 2150]);
  });

  it('reads a boolean said as text and topics given as a list', async () => {
    const { call } = await placeOfferCall(t, standIn, '+14155550230');
    const listed = await answer(call, 'tc-q', 'answer_question', { topics: ['weight', 'pickup time'] });
    expect(listed.metadata).toMatchObject({ topics: ['weight', 'pickup_time'] });
    const one = await answer(call, 'tc-q1', 'answer_question', { topic: 'Weight' });
    expect(one.metadata).toMatchObject({ topics: ['weight'] });
    const elp = await answer(call, 'tc-e1', 'record_elp_answer', {
      question_id: 'q1',
      answer: 'Yes',
      valid: 'maybe',
    });
    expect(elp.error).toMatch(/^valid must be true or false/);
  });
});

/** The tool-calls message of a ServerMessage built by toolCalls(). */
function objectMessage(m: Vapi.ServerMessage): Vapi.ServerMessageToolCalls {
  const message = defined(m.message, 'the message');
  if (message.type !== 'tool-calls') throw new Error('not a tool-calls message');
  return message;
}
