import type { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { sendVapi, useVapiStandIn, VAPI_SECRET, vapiCall, vapiEnv } from '../helpers/vapi-stand-in.js';

type Headers = Record<string, string>;

const api = (
  t: TestApp,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  headers: Headers,
  payload?: object,
) => t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });

function assistantRequest(vapiId: string, phoneNumberId: string) {
  return {
    message: {
      type: 'assistant-request',
      timestamp: Date.now(),
      call: vapiCall(vapiId, undefined, {
        type: 'inboundPhoneCall',
        customer: { number: '+13125550144' },
        phoneNumberId,
      }),
      customer: { number: '+13125550144' },
      phoneNumber: { provider: 'twilio', number: '+18005550199', twilioAccountSid: 'AC123' },
    },
  } satisfies Vapi.ServerMessage;
}

describe('voice numbers and the voice health', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn) });

  it('refuses VOICE_PROVIDER=vapi without the server credential id, naming the variable', () => {
    const env = {
      JWT_SECRET: 'x'.repeat(32),
      VOICE_PROVIDER: 'vapi',
      VAPI_API_KEY: 'vapi-private-key',
      VAPI_PHONE_NUMBER_ID: 'pn_1',
      VAPI_WEBHOOK_SECRET: VAPI_SECRET,
      PUBLIC_BASE_URL: 'https://envoy.example',
    };
    expect(() => loadConfig(env, () => {})).toThrowError(ConfigError);
    expect(() => loadConfig(env, () => {})).toThrowError(
      /VAPI_SERVER_CREDENTIAL_ID: required when VOICE_PROVIDER is vapi/,
    );
    expect(
      loadConfig({ ...env, VAPI_SERVER_CREDENTIAL_ID: 'cred_1' }, () => {}).voice.vapi?.credentialId,
    ).toBe('cred_1');
  });

  it('says which credential, number and server settings are in use, without a secret', async () => {
    const { user } = await createTenant(t, 'MEMBER');
    const res = await api(t, 'GET', '/voice/health', user.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      provider: 'vapi',
      api: standIn.base,
      default_phone_number_id: 'pn_envoy',
      server_url: 'https://envoy.example/api/v1/integrations/voice/events',
      server_credential_id: 'cred_envoy_hmac',
      server_auth: 'hmac sha256 hex of {timestamp}.{body} in x-signature, time in x-timestamp',
      place_retries: 3,
      outbound_phone_number_id: 'pn_envoy',
      outbound_phone_number_source: 'default',
    });
    expect(res.body).not.toContain(VAPI_SECRET);
    expect(res.body).not.toContain('vapi-private-key');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/voice/health' })).statusCode).toBe(401);
  });

  it("places an organization's calls from its own number and routes calls to its numbers to it", async () => {
    const { orgId, user } = await createTenant(t);
    const other = await createTenant(t);
    const member = await createUser(t, orgId, 'MEMBER');
    const key = await createApiKey(t, user.headers);
    const body = { phone_number_id: 'pn_acme_out', phone_number: '(312) 555-0123', outbound: true };
    // OWNER and ADMIN only.
    for (const headers of [member.headers, key.headers]) {
      expect((await api(t, 'POST', '/voice/numbers', headers, body)).statusCode).toBe(403);
    }
    const created = await api(t, 'POST', '/voice/numbers', user.headers, body);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      id: expect.stringMatching(/^vnum_/),
      provider: 'vapi',
      phone_number_id: 'pn_acme_out',
      phone_number: '+13125550123',
      outbound: true,
    });
    // One organization per number.
    const taken = await api(t, 'POST', '/voice/numbers', other.user.headers, {
      phone_number_id: 'pn_acme_out',
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.param).toBe('phone_number_id');
    const bad = await api(t, 'POST', '/voice/numbers', user.headers, { phone_number_id: '' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.param).toBe('phone_number_id');
    // A second outbound number takes over the caller ID.
    const inbound = await api(t, 'POST', '/voice/numbers', user.headers, { phone_number_id: 'pn_acme_in' });
    expect(inbound.json().outbound).toBe(false);

    // Outbound: the organization's number; another organization keeps the default.
    await api(t, 'POST', '/calls', user.headers, { phone_number: '+14155550150' });
    expect(standIn.lastCall().body.phoneNumberId).toBe('pn_acme_out');
    await api(t, 'POST', '/calls', other.user.headers, { phone_number: '+14155550151' });
    expect(standIn.lastCall().body.phoneNumberId).toBe('pn_envoy');
    expect((await api(t, 'GET', '/voice/health', user.headers)).json()).toMatchObject({
      outbound_phone_number_id: 'pn_acme_out',
      outbound_phone_number_source: 'organization',
    });

    // Inbound: a call to its number is answered for it, without organization_id in the server URL.
    const answered = await sendVapi(t, assistantRequest('vapi-in-n1', 'pn_acme_in'));
    expect(answered.statusCode, answered.body).toBe(200);
    const { assistant } = answered.json<Vapi.ServerMessageResponseAssistantRequest>();
    expect(assistant?.metadata).toMatchObject({ organization_id: orgId });
    const unknown = await sendVapi(t, assistantRequest('vapi-in-n2', 'pn_nobody'));
    expect(unknown.json()).toEqual({ error: 'Sorry, this number is not taking calls right now.' });

    // The list is the organization's; another organization cannot see or delete its numbers.
    const list = (await api(t, 'GET', '/voice/numbers', user.headers)).json().data;
    expect(list.map((n: { phone_number_id: string }) => n.phone_number_id)).toEqual([
      'pn_acme_out',
      'pn_acme_in',
    ]);
    expect((await api(t, 'GET', '/voice/numbers', other.user.headers)).json().data).toEqual([]);
    const id = created.json().id;
    expect((await api(t, 'DELETE', `/voice/numbers/${id}`, other.user.headers)).statusCode).toBe(404);
    expect((await api(t, 'DELETE', `/voice/numbers/${id}`, user.headers)).statusCode).toBe(204);
    await api(t, 'POST', '/calls', user.headers, { phone_number: '+14155550152' });
    expect(standIn.lastCall().body.phoneNumberId).toBe('pn_envoy');
  });
});
