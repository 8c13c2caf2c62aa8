import type { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { spokenReference } from '../../src/lib/spoken.js';
import { VOICE_VARIABLES } from '../../src/modules/voice-templates/voice-variables.js';
import { agentEnv, agentLoad, agentRound, laneCarrier, tenant } from '../helpers/agent-factories.js';
import { useTestApp } from '../helpers/app.js';
import { createCarrier } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';
import { withoutGeneratedIds } from '../helpers/secrets.js';
import { scriptOf, sendVapi, useVapiStandIn, vapiCall, vapiEnv } from '../helpers/vapi-stand-in.js';

type Headers = Record<string, string>;

const PURPOSES = ['load_booking', 'elp', 'tracking_check', 'inbound_sales'] as const;
const BUILTIN = {
  load_booking: 'vt_00000000-0000-7000-8000-000000000001',
  elp: 'vt_00000000-0000-7000-8000-000000000002',
  tracking_check: 'vt_00000000-0000-7000-8000-000000000003',
  inbound_sales: 'vt_00000000-0000-7000-8000-000000000004',
} as const satisfies Record<(typeof PURPOSES)[number], string>;

/** A script that uses every variable the service provides. */
const everyVariable = Object.keys(VOICE_VARIABLES)
  .map((name) => `${name}: {{${name}}}`)
  .join('\n');

describe('voice templates', () => {
  const standIn = useVapiStandIn();
  // No loop runs the agent: the test that needs it runs a round.
  const t = useTestApp({ env: vapiEnv(standIn, { ...agentEnv, WORKERS_ENABLED: 'false' }) });

  const api = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    headers: Headers,
    payload?: object,
  ) => t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });

  const template = (purpose: string, extra: Record<string, unknown> = {}) => ({
    name: `Our ${purpose} script`,
    purpose,
    first_message: 'Hello from {{broker_name}} about {{load_number}}.',
    instructions: `Be brief.\n${everyVariable}`,
    ...extra,
  });

  it('documents the voice template routes and the voice webhook in OpenAPI', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const ops = {
      'get /api/v1/voice-templates': 'listVoiceTemplates',
      'post /api/v1/voice-templates': 'createVoiceTemplate',
      'get /api/v1/voice-templates/variables': 'listVoiceTemplateVariables',
      'get /api/v1/voice-templates/{template_id}': 'getVoiceTemplate',
      'patch /api/v1/voice-templates/{template_id}': 'updateVoiceTemplate',
      'delete /api/v1/voice-templates/{template_id}': 'deleteVoiceTemplate',
    };
    for (const [key, operationId] of Object.entries(ops)) {
      const [method = '', path = ''] = key.split(' ');
      const op = doc.paths[path][method];
      expect(op.operationId, key).toBe(operationId);
      expect(op.tags).toEqual(['voice-templates']);
      expect(op.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    }
    expect(doc.paths['/api/v1/voice-templates'].post.description).toMatch(
      /Accepts an API key or a bearer token of an OWNER or ADMIN/,
    );
    expect(doc.paths['/api/v1/voice-templates'].get.description).toMatch(
      /Accepts an API key or a bearer token\.$/,
    );
    expect(Object.keys(doc.paths['/api/v1/voice-templates'].post.responses)).toEqual(
      expect.arrayContaining(['201', '401', '403', '422']),
    );
    expect(doc.components.schemas.VoiceTemplate.required).toEqual(
      expect.arrayContaining(['id', 'purpose', 'first_message', 'instructions', 'is_default', 'is_builtin']),
    );
    const events = doc.paths['/api/v1/integrations/voice/events'].post;
    expect(events.operationId).toBe('voiceEvents');
    expect(events.description).toMatch(/assistant-request/);
    expect(events.parameters.map((p: { name: string }) => p.name)).toContain('organization_id');
    expect(doc.components.schemas.CallDetail.properties).toHaveProperty('analysis');
  });

  it('lists the built-in script of every purpose to any member, with the variables they may use', async () => {
    const { orgId } = await createTenant(t);
    const member = await createUser(t, orgId, 'MEMBER');
    const list = await api('GET', '/voice-templates?page_size=100', member.headers);
    expect(list.statusCode).toBe(200);
    const builtins = list.json().data.filter((v: { is_builtin: boolean }) => v.is_builtin);
    expect(builtins.map((v: { id: string; purpose: string }) => [v.purpose, v.id]).sort()).toEqual(
      Object.entries(BUILTIN).sort(),
    );
    for (const b of builtins) {
      expect(b).toMatchObject({ organization_id: null, is_default: true, voice: null, model: null });
    }
    const one = await api('GET', `/voice-templates/${BUILTIN.elp}`, member.headers);
    expect(one.json()).toMatchObject({
      purpose: 'elp',
      first_message: expect.stringContaining('{{broker_name}}'),
    });
    const filtered = await api('GET', '/voice-templates?purpose=tracking_check', member.headers);
    expect(filtered.json().data.map((v: { id: string }) => v.id)).toEqual([BUILTIN.tracking_check]);
    const variables = (await api('GET', '/voice-templates/variables', member.headers)).json();
    expect(variables.data.map((v: { name: string }) => v.name)).toEqual(Object.keys(VOICE_VARIABLES));
    expect(variables.never_available).toEqual(['customer_rate', 'margin', 'max_buy_rate', 'stop notes']);
  });

  it('creates templates for OWNERs, ADMINs and API keys, refusing MEMBERs and unknown placeholders', async () => {
    const { orgId, user } = await createTenant(t);
    const admin = await createUser(t, orgId, 'ADMIN');
    const member = await createUser(t, orgId, 'MEMBER');
    const key = await createApiKey(t, user.headers);
    const created = await api('POST', '/voice-templates', admin.headers, {
      ...template('load_booking'),
      voicemail_message: 'Call {{broker_name}} back about {{load_number}}.',
      voice: { provider: '11labs', voice_id: 'burt' },
      model: { provider: 'openai', model: 'gpt-4o-mini' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      id: expect.stringMatching(/^vt_/),
      organization_id: orgId,
      purpose: 'load_booking',
      is_default: false,
      is_builtin: false,
      voice: { provider: '11labs', voice_id: 'burt' },
      model: { provider: 'openai', model: 'gpt-4o-mini' },
    });
    expect((await api('POST', '/voice-templates', key.headers, template('elp'))).statusCode).toBe(201);
    const forbidden = await api('POST', '/voice-templates', member.headers, template('elp'));
    expect(forbidden.statusCode).toBe(403);

    const unknown = await api('POST', '/voice-templates', user.headers, {
      ...template('load_booking'),
      instructions: 'Never say {{ customer_rate }} or {{max_buy_rate}}.',
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({
      code: 'validation_error',
      param: 'instructions',
      message: expect.stringContaining('Unknown placeholder {{ customer_rate }}'),
    });
    const liquid = await api('POST', '/voice-templates', user.headers, {
      ...template('load_booking'),
      first_message: '{% if load_number %}Hi{% endif %}',
    });
    expect(liquid.json().error.param).toBe('first_message');
    const badVoice = await api('POST', '/voice-templates', user.headers, {
      ...template('load_booking'),
      voice: { provider: 'tin-can', voice_id: 'x' },
    });
    expect(badVoice.json().error.param).toBe('voice.provider');
    // Voice ids and model names are checked against the lists of Vapi's SDK when saved.
    for (const [body, param, message] of [
      [
        { voice: { provider: '11labs', voice_id: 'burtt' } },
        'voice.voice_id',
        /'burtt' is not a 11labs voice/,
      ],
      [{ voice: { provider: 'deepgram', voice_id: 'robot' } }, 'voice.voice_id', /custom: true/],
      [
        { voice: { provider: 'deepgram', voice_id: 'robot', custom: true } },
        'voice.custom',
        /only its listed/,
      ],
      [{ model: { provider: 'openai', model: 'gpt-4-turbo-ultra' } }, 'model.model', /not a openai model/],
      [{ model: { provider: 'anthropic', model: 'gpt-4o' } }, 'model.model', /not a anthropic model/],
    ] as const) {
      const refused = await api('POST', '/voice-templates', user.headers, {
        ...template('load_booking'),
        ...body,
      });
      expect(refused.statusCode, JSON.stringify(body)).toBe(422);
      expect(refused.json().error).toMatchObject({ param, message: expect.stringMatching(message) });
    }
    // The escape for a cloned or library voice: custom: true, passed on to Vapi as given.
    const cloned = await api('POST', '/voice-templates', user.headers, {
      ...template('load_booking'),
      voice: { provider: '11labs', voice_id: 'aB3xYz_cloned_voice', custom: true },
      model: { provider: 'anthropic', model: 'claude-3-5-sonnet-20241022' },
    });
    expect(cloned.statusCode, cloned.body).toBe(201);
    expect(cloned.json().voice).toEqual({
      provider: '11labs',
      voice_id: 'aB3xYz_cloned_voice',
      custom: true,
    });
    const repatched = await api('PATCH', `/voice-templates/${cloned.json().id}`, user.headers, {
      voice: { provider: 'openai', voice_id: 'nova-ish' },
    });
    expect(repatched.statusCode).toBe(422);
    expect(repatched.json().error.param).toBe('voice.voice_id');
    const badPurpose = await api('POST', '/voice-templates', user.headers, template('cold_calling'));
    expect(badPurpose.json().error.param).toBe('purpose');
    const long = await api('POST', '/voice-templates', user.headers, {
      ...template('load_booking'),
      instructions: 'x'.repeat(20_001),
    });
    expect(long.json().error.param).toBe('instructions');

    const id = created.json().id;
    const patched = await api('PATCH', `/voice-templates/${id}`, user.headers, {
      name: 'Renamed',
      voice: null,
      voicemail_message: null,
    });
    expect(patched.json()).toMatchObject({ name: 'Renamed', voice: null, voicemail_message: null });
    const badPatch = await api('PATCH', `/voice-templates/${id}`, user.headers, {
      first_message: '{{nope}}',
    });
    expect(badPatch.json().error).toMatchObject({
      param: 'first_message',
      message: expect.stringContaining('{{nope}}'),
    });
    expect((await api('PATCH', `/voice-templates/${id}`, member.headers, { name: 'x' })).statusCode).toBe(
      403,
    );
    expect((await api('DELETE', `/voice-templates/${id}`, member.headers)).statusCode).toBe(403);
  });

  it("keeps built-ins read-only, one default per purpose, and other organizations' templates out of sight", async () => {
    const { user } = await createTenant(t);
    const other = await createTenant(t);
    expect(
      (await api('PATCH', `/voice-templates/${BUILTIN.load_booking}`, user.headers, { name: 'x' }))
        .statusCode,
    ).toBe(403);
    const del = await api('DELETE', `/voice-templates/${BUILTIN.load_booking}`, user.headers);
    expect(del.statusCode).toBe(403);
    expect(del.json().error.param).toBe('template_id');

    const first = (
      await api('POST', '/voice-templates', user.headers, template('load_booking', { is_default: true }))
    ).json();
    expect(first.is_default).toBe(true);
    const builtin = (await api('GET', `/voice-templates/${BUILTIN.load_booking}`, user.headers)).json();
    expect(builtin.is_default).toBe(false);
    const second = (
      await api('POST', '/voice-templates', user.headers, template('load_booking', { is_default: true }))
    ).json();
    expect((await api('GET', `/voice-templates/${first.id}`, user.headers)).json().is_default).toBe(false);
    expect(second.is_default).toBe(true);
    // The other organization still runs on the built-in, and cannot see these.
    expect(
      (await api('GET', `/voice-templates/${BUILTIN.load_booking}`, other.user.headers)).json().is_default,
    ).toBe(true);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await api(
        method,
        `/voice-templates/${second.id}`,
        other.user.headers,
        method === 'PATCH' ? { name: 'x' } : undefined,
      );
      expect(res.statusCode).toBe(404);
    }
    const mine = (await api('GET', '/voice-templates?is_builtin=false', user.headers)).json();
    expect(mine.data.map((v: { id: string }) => v.id)).toEqual([second.id, first.id]);
    expect((await api('DELETE', `/voice-templates/${second.id}`, user.headers)).statusCode).toBe(204);
    expect(
      (await api('GET', `/voice-templates/${BUILTIN.load_booking}`, user.headers)).json().is_default,
    ).toBe(true);
    // Moving the default to another purpose unsets the default there.
    const elpDefault = (
      await api('POST', '/voice-templates', user.headers, template('elp', { is_default: true }))
    ).json();
    const moved = await api('PATCH', `/voice-templates/${first.id}`, user.headers, {
      purpose: 'elp',
      is_default: true,
    });
    expect(moved.json()).toMatchObject({ purpose: 'elp', is_default: true });
    expect((await api('GET', `/voice-templates/${elpDefault.id}`, user.headers)).json().is_default).toBe(
      false,
    );
  });

  it("uses the template a call names, else the organization's default for its purpose", async () => {
    const { user } = await createTenant(t);
    const loadId = await createLoad(t, user.headers, { posted_rate: 1800 });
    const named = (
      await api('POST', '/voice-templates', user.headers, {
        ...template('load_booking'),
        first_message: 'Named script for {{load_number}} at {{posted_rate}}.',
      })
    ).json();
    const load = (await api('GET', `/loads/${loadId}`, user.headers)).json();
    const call = await api('POST', '/calls', user.headers, {
      phone_number: '+14155550130',
      load_id: loadId,
      call_type: 'LOAD_BOOKING',
      template_id: named.id,
    });
    expect(call.statusCode, call.body).toBe(201);
    // The first message is said aloud: the load number one character at a time, the rate in words.
    expect(standIn.lastCall().body.assistant?.firstMessage).toBe(
      `Named script for ${spokenReference(load.load_number)} at eighteen hundred dollars.`,
    );
    expect((await api('GET', `/calls/${call.json().id}`, user.headers)).json().template_id).toBe(named.id);

    await api('POST', '/voice-templates', user.headers, {
      ...template('load_booking', { is_default: true }),
      first_message: 'Organization default about {{load_number}}.',
    });
    const byDefault = await api('POST', '/calls', user.headers, {
      phone_number: '+14155550131',
      load_id: loadId,
      call_type: 'LOAD_BOOKING',
    });
    expect(byDefault.statusCode).toBe(201);
    expect(standIn.lastCall().body.assistant?.firstMessage).toBe(
      `Organization default about ${spokenReference(load.load_number)}.`,
    );
    // A variable without a value is said as "not given", never as a placeholder.
    const noLoad = await api('POST', '/calls', user.headers, {
      phone_number: '+14155550132',
      call_type: 'LOAD_BOOKING',
    });
    expect(noLoad.statusCode).toBe(201);
    expect(standIn.lastCall().body.assistant?.firstMessage).toBe('Organization default about not given.');
  });

  it("has the agent's calls run the organization's default load-booking script", async () => {
    const { h } = await tenant(t, { channel_order: ['call'] });
    const created = await api('POST', '/voice-templates', h, {
      ...template('load_booking', { is_default: true }),
      first_message: 'Agent script: {{broker_name}} calling {{carrier_name}} about {{load_number}}.',
    });
    expect(created.statusCode).toBe(201);
    await laneCarrier(t, h, { name: 'Agent Lane Freight', phone: '+14155550140' });
    const loadId = await agentLoad(t, h);
    // One round plans the contact and places the call.
    await agentRound(t);
    const called = standIn.callBodies().filter((b) => b.customer?.number === '+14155550140');
    expect(called).toHaveLength(1);
    expect(defined(called[0], 'called[0]').assistant?.firstMessage).toMatch(
      /^Agent script: Brokerage \w+ calling Agent Lane Freight about L N /,
    );
    const outreaches = (await api('GET', `/outreaches?load_id=${loadId}`, h)).json().data;
    expect(outreaches[0]).toMatchObject({
      modality: 'call',
      is_automated: true,
      call_id: expect.stringMatching(/^call_/),
    });
  });

  it('never puts the max buy rate, the customer rate, the margin or stop notes into the assistant of any template', async () => {
    const { orgId, user } = await createTenant(t);
    await createCarrier(t, user.headers, { phone: '+14155550150', name: 'Careful Carriers' });
    const loadId = await createLoad(t, user.headers, {
      posted_rate: 2000,
      max_buy_rate: 27182,
      customer_rate: 31337,
      margin: 4242,
      notes: 'LOAD-NOTE-ORCHID',
      commodity: 'Steel coils',
      special_instructions: ['Tarps required'],
      driver: { first_name: 'Dee', last_name: 'Driver', phone: '+14155550151' },
      stops: [
        { ...stopPayload('Pickup'), notes: 'ZEBRA-GATE-9931' },
        { ...stopPayload('Dropoff'), notes: 'ZEBRA-DOCK-1177', special_instructions: ['Lumper on site'] },
      ],
    });
    // Object.fromEntries over PURPOSES: the record has each purpose.
    const custom = Object.fromEntries(
      await Promise.all(
        PURPOSES.map(async (purpose) => {
          const res = await api('POST', '/voice-templates', user.headers, {
            ...template(purpose),
            voicemail_message: everyVariable,
          });
          expect(res.statusCode, res.body).toBe(201);
          return [purpose, res.json<{ id: string }>().id];
        }),
      ),
    ) as Record<keyof typeof BUILTIN, string>;
    const secrets = [
      '27182',
      '27,182',
      '31337',
      '31,337',
      '4242',
      '4,242',
      'ORCHID',
      'ZEBRA',
      'customer_rate',
      'max_buy_rate',
      'margin',
    ];
    const checked: string[] = [];
    for (const purpose of PURPOSES) {
      for (const templateId of [BUILTIN[purpose], custom[purpose]]) {
        const res = await api('POST', '/calls', user.headers, {
          phone_number: '+14155550150',
          load_id: loadId,
          call_type: purpose === 'load_booking' ? 'LOAD_BOOKING' : purpose === 'elp' ? 'ELP' : null,
          template_id: templateId,
          template_variables: { instructions: 'Ask for the ETA', driver_name: 'Dee' },
        });
        expect(res.statusCode, res.body).toBe(201);
        const body = standIn.lastCall().body;
        const sent = JSON.stringify(body);
        const said = withoutGeneratedIds(sent);
        for (const secret of secrets)
          expect(said, `${purpose} ${templateId}: ${secret}`).not.toContain(secret);
        // The facts that may be said are there.
        expect(sent).toContain('Careful Carriers');
        if (templateId === custom[purpose]) {
          expect(scriptOf(body)).toContain('posted_rate: $2,000');
          expect(scriptOf(body)).toContain('special_instructions: Tarps required; Lumper on site');
          expect(body.assistant?.voicemailMessage).toContain('commodity: Steel coils');
        }
        // And the load details tool answers with the same sayable facts only.
        const details = await sendVapi(t, {
          message: {
            type: 'tool-calls',
            call: vapiCall(standIn.lastCall().vapiId, res.json().id),
            toolCallList: [
              { id: 'd1', type: 'function', function: { name: 'get_load_details', arguments: '{}' } },
            ],
            toolWithToolCallList: [],
          },
        } satisfies Vapi.ServerMessage);
        for (const secret of secrets) expect(withoutGeneratedIds(details.body)).not.toContain(secret);
        checked.push(templateId);
      }
    }
    expect(new Set(checked).size).toBe(8);
    // The inbound script as Vapi gets it for a call to the brokerage's number.
    const inbound = await sendVapi(
      t,
      {
        message: {
          type: 'assistant-request',
          call: vapiCall('vapi-in-secret', undefined, { customer: { number: '+14155550150' } }),
          customer: { number: '+14155550150' },
        },
      } satisfies Vapi.ServerMessage,
      { query: `?organization_id=${orgId}` },
    );
    expect(inbound.json().assistant).toBeDefined();
    for (const secret of secrets) expect(withoutGeneratedIds(inbound.body)).not.toContain(secret);
  });
});
