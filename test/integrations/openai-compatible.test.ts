import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatModelError, OpenAiCompatibleChatModel } from '../../src/integrations/llm/openai-compatible.js';
import { draftReply, extractWithModel } from '../../src/integrations/llm/reply-extraction.js';
import { defined } from '../../src/lib/defined.js';
import { portOf } from '../helpers/listening.js';
import { instanceOf } from '../helpers/narrow.js';

interface Received {
  path: string;
  authorization: string | undefined;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    temperature?: number;
    max_tokens?: number;
    response_format?: { type: string };
  };
}

const MALFORMED = '<no choices>';
const HANG = '<never answer>';

/**
 * Answers in the chat-completions shape with whatever the next queued reply is; a queued number
 * is answered as that HTTP status with an OpenAI-style error body, MALFORMED without choices and
 * HANG not at all.
 */
function completionsStandIn() {
  const received: Received[] = [];
  const replies: (string | number)[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      received.push({ path: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(raw) });
      res.setHeader('content-type', 'application/json');
      const next = replies.shift() ?? '';
      if (next === HANG) return;
      if (next === MALFORMED) return res.end('{"id":"chatcmpl-x","choices":[]}');
      if (typeof next === 'number') {
        res.statusCode = next;
        return res.end(
          JSON.stringify({ error: { message: 'The server had an error', type: 'server_error', code: null } }),
        );
      }
      if (req.url !== '/v1/chat/completions') {
        res.statusCode = 404;
        return res.end('{}');
      }
      res.end(
        JSON.stringify({
          id: 'chatcmpl-abc123',
          object: 'chat.completion',
          created: 1795360323,
          model: 'gpt-4o-mini-2024-07-18',
          choices: [
            { index: 0, message: { role: 'assistant', content: next, refusal: null }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 },
        }),
      );
    });
  });
  return { server, received, replies };
}

describe('the OpenAI-compatible chat model', () => {
  const standIn = completionsStandIn();
  let base = '';
  let model: OpenAiCompatibleChatModel;
  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${portOf(standIn.server)}/v1`;
    model = new OpenAiCompatibleChatModel({
      baseUrl: base,
      apiKey: 'sk-test-secret-key',
      model: 'gpt-4o-mini',
    });
  });
  afterAll(() => {
    standIn.server.closeAllConnections();
    return new Promise<void>((resolve) => standIn.server.close(() => resolve()));
  });

  it('posts the model, messages and JSON response format with the bearer key', async () => {
    standIn.replies.push('{"ok":true}');
    const out = await model.complete([{ role: 'user', content: 'hi' }], { json: true, maxTokens: 50 });
    expect(out).toBe('{"ok":true}');
    const got = defined(standIn.received.at(-1), 'standIn.received.at(-1)');
    expect(got.path).toBe('/v1/chat/completions');
    expect(got.authorization).toBe('Bearer sk-test-secret-key');
    expect(got.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0,
      max_tokens: 50,
      response_format: { type: 'json_object' },
    });
  });

  it('sends no key and no response format when not asked', async () => {
    const local = new OpenAiCompatibleChatModel({ baseUrl: `${base}/`, model: 'llama3.1' });
    standIn.replies.push('Hello there');
    expect(await local.complete([{ role: 'user', content: 'hi' }])).toBe('Hello there');
    const got = defined(standIn.received.at(-1), 'standIn.received.at(-1)');
    expect(got.authorization).toBeUndefined();
    expect(got.body.response_format).toBeUndefined();
    expect(got.body.max_tokens).toBeUndefined();
  });

  it('throws on a 500 without the key in the message', async () => {
    standIn.replies.push(500);
    const failure = instanceOf(
      await model.complete([{ role: 'user', content: 'hi' }]).catch((e: unknown) => e),
      ChatModelError,
    );
    expect(failure.message).toMatch(/500/);
    expect(failure.message).not.toContain('sk-test-secret-key');
  });

  it('throws on a malformed answer and on a timeout', async () => {
    const wrongPath = new OpenAiCompatibleChatModel({ baseUrl: `${base}/nope`, model: 'm' });
    await expect(wrongPath.complete([{ role: 'user', content: 'hi' }])).rejects.toThrow(/404/);
    standIn.replies.length = 0;
    standIn.replies.push(MALFORMED);
    await expect(model.complete([{ role: 'user', content: 'hi' }])).rejects.toThrow(
      /without message content/,
    );
    const impatient = new OpenAiCompatibleChatModel({ baseUrl: base, model: 'm', timeoutMs: 150 });
    standIn.replies.push(HANG);
    await expect(impatient.complete([{ role: 'user', content: 'hi' }])).rejects.toThrow(/TimeoutError/);
  });

  it('extracts the rate, availability and opt-out from a reply', async () => {
    standIn.replies.push('{"rate": 2450, "available": true, "stop_contact": false}');
    const result = await extractWithModel(model, 'We can do it for $2,450 all in, truck is empty in Dallas.');
    expect(result).toEqual({ rate: 2450, available: true, stop_contact: false });
    const got = defined(standIn.received.at(-1), 'standIn.received.at(-1)');
    expect(got.body.response_format).toEqual({ type: 'json_object' });
    expect(defined(got.body.messages[0], 'got.body.messages[0]').role).toBe('system');
    expect(defined(got.body.messages[0], 'got.body.messages[0]').content).toMatch(
      /"rate".*"available".*"stop_contact"/,
    );
    expect(got.body.messages[1]).toEqual({
      role: 'user',
      content: 'We can do it for $2,450 all in, truck is empty in Dallas.',
    });

    standIn.replies.push('```json\n{"rate": null, "available": null, "stop_contact": true}\n```');
    expect(await extractWithModel(model, 'Please remove us from your list.')).toEqual({
      rate: null,
      available: null,
      stop_contact: true,
    });
  });

  it('gives nulls for invalid JSON or the wrong shape', async () => {
    const nothing = { rate: null, available: null, stop_contact: false };
    standIn.replies.push('Sure! The rate is 2450.');
    expect(await extractWithModel(model, 'x')).toEqual(nothing);
    standIn.replies.push('{"rate": "2450", "available": "yes"}');
    expect(await extractWithModel(model, 'x')).toEqual(nothing);
    standIn.replies.push('[1, 2]');
    expect(await extractWithModel(model, 'x')).toEqual(nothing);
  });

  it('keeps an opt-out when another field is garbled', async () => {
    standIn.replies.push('{"rate": "two thousand", "available": false, "stop_contact": true}');
    expect(await extractWithModel(model, 'No trucks. Stop texting me.')).toEqual({
      rate: null,
      available: false,
      stop_contact: true,
    });
  });

  it('drafts a counter offer from the summary and the amount only, trimmed and capped', async () => {
    standIn.replies.push(`\n  Hi Maria, could you do $2,300 for this one?  ${' '.repeat(5)}\n`);
    const draft = await draftReply(model, {
      carrierName: 'Swift Haul LLC',
      loadSummary: 'Dry van, Dallas, TX to Atlanta, GA, pickup Mon Nov 16',
      intent: 'counter',
      amount: 2300,
    });
    expect(draft).toBe('Hi Maria, could you do $2,300 for this one?');
    const got = defined(standIn.received.at(-1), 'standIn.received.at(-1)');
    expect(got.body.response_format).toBeUndefined();
    expect(defined(got.body.messages[0], 'got.body.messages[0]').content).toMatch(
      /Never mention the customer's rate/,
    );
    expect(defined(got.body.messages[0], 'got.body.messages[0]').content).toMatch(/margin/);
    expect(defined(got.body.messages[0], 'got.body.messages[0]').content).toMatch(
      /maximum or target buy rate/,
    );
    expect(defined(got.body.messages[1], 'got.body.messages[1]').content).toContain(
      'Load: Dry van, Dallas, TX to Atlanta, GA, pickup Mon Nov 16',
    );
    expect(defined(got.body.messages[1], 'got.body.messages[1]').content).toContain('Amount: $2,300');

    const before = standIn.received.length;
    await expect(
      draftReply(model, { carrierName: 'X', loadSummary: 'L', intent: 'counter' }),
    ).rejects.toThrow(/amount/);
    expect(standIn.received.length).toBe(before);

    standIn.replies.push('y'.repeat(5000));
    expect(await draftReply(model, { carrierName: 'X', loadSummary: 'L', intent: 'thanks' })).toHaveLength(
      1000,
    );
    expect(
      defined(
        defined(standIn.received.at(-1), 'standIn.received.at(-1)').body.messages[1],
        'standIn.received.at(-1).body.messages[1]',
      ).content,
    ).not.toContain('Amount');
  });
});
