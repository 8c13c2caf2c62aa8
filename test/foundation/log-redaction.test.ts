import { describe, expect, it } from 'vitest';
import { objectOf } from '../../src/lib/json-object.js';
import { useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';

describe('credentials in query strings never reach the log', () => {
  const t = useTestApp({ captureLogs: true, env: { EMAIL_INBOUND_SECRET: 'inbound-secret-value-1' } });

  const loggedUrls = (marker: string) =>
    t.logs
      .map((l) => objectOf(l.req)?.url)
      .filter((u): u is string => typeof u === 'string' && u.includes(marker));

  it('redacts ?token= on the inbound e-mail route in the request log line, whatever the outcome', async () => {
    for (const token of ['inbound-secret-value-1', 'a-wrong-guess-value-2']) {
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/integrations/email/inbound?token=${token}&marker=mail`,
        payload: { RecordType: 'Inbound' },
      });
      expect(JSON.stringify(t.logs)).not.toContain(token);
    }
    expect(loggedUrls('marker=mail')).toEqual([
      '/api/v1/integrations/email/inbound?token=[redacted]&marker=mail',
      '/api/v1/integrations/email/inbound?token=[redacted]&marker=mail',
    ]);
  });

  it('redacts hub.verify_token (also percent-encoded) and keeps the other parameters', async () => {
    const unconfigured = await t.app.inject({
      method: 'GET',
      url: '/api/v1/integrations/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=verify-secret-3&hub.challenge=42',
    });
    // Without the Cloud API configured the route is 404, and its answer does not echo the token.
    expect(unconfigured.statusCode).toBe(404);
    expect(unconfigured.body).not.toContain('verify-secret-3');
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/integrations/whatsapp/webhook?hub%2Everify_token=verify-secret-4&hub.challenge=43',
    });
    const text = JSON.stringify(t.logs);
    expect(text).not.toContain('verify-secret-3');
    expect(text).not.toContain('verify-secret-4');
    expect(loggedUrls('hub.challenge=4')).toEqual([
      '/api/v1/integrations/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=42',
      '/api/v1/integrations/whatsapp/webhook?hub%2Everify_token=[redacted]&hub.challenge=43',
    ]);
  });

  it('redacts other secret-looking names on any route, including unknown routes and bad URLs', async () => {
    const { user } = await createTenant(t);
    for (const url of [
      '/api/v1/loads?page=2&api_key=key-secret-5&search=dallas',
      '/api/v1/no-such-route?access_token=token-secret-6',
      '/api/v1/loads/%ff?secret=bad-url-secret-7',
      '/api/v1/carriers?password=password-secret-8',
    ]) {
      await t.app.inject({ method: 'GET', url, headers: user.headers });
    }
    const text = JSON.stringify(t.logs);
    for (const s of ['key-secret-5', 'token-secret-6', 'bad-url-secret-7', 'password-secret-8']) {
      expect(text).not.toContain(s);
    }
    expect(loggedUrls('search=dallas')).toEqual(['/api/v1/loads?page=2&api_key=[redacted]&search=dallas']);
    expect(loggedUrls('%ff')).toEqual(['/api/v1/loads/%ff?secret=[redacted]']);
  });
});
