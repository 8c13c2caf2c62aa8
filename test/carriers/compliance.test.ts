import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCarrier, goodStanding, registryFile, waitForCarrier } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';

const recent = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
const registry = registryFile([
  goodStanding('100001', '200001'),
  goodStanding('100002', '200002', { out_of_service: true }),
  goodStanding('100003', '200003', { insurance_on_file: false }),
  goodStanding('100004', '200004', { authorized_for_hire: false }),
  goodStanding('100005', '200005', { authority_granted_at: recent }),
  goodStanding('100006', '200006'),
  goodStanding('100007', '200007'),
  goodStanding('100008', '200008'),
]);

describe('compliance with the registry provider', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry, WORKER_POLL_MS: '50' } });
  const checks = async (id: string, headers: Record<string, string>) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${id}/compliance-checks`, headers })).json()
      .data;

  it('gives the verdict of each rule and stores every check', async () => {
    const { user } = await createTenant(t);
    const cases: [Record<string, unknown>, string, string[]][] = [
      [{ mc_number: '100001', dot_number: '200001' }, 'PASSED', []],
      [{ mc_number: '100002' }, 'BLOCKED', ['out_of_service']],
      [{ mc_number: '100003' }, 'BLOCKED', ['no_insurance_on_file']],
      [{ mc_number: '100004' }, 'BLOCKED', ['not_authorized_for_hire']],
      [{ mc_number: '100005' }, 'BLOCKED', ['new_authority']],
      [{ mc_number: '100006', dot_number: '999999' }, 'BLOCKED', ['mc_dot_mismatch']],
      [{}, 'UNVERIFIED', ['no_mc_or_dot']],
      [{ mc_number: '424242' }, 'UNVERIFIED', ['not_in_registry']],
    ];
    for (const [fields, status, reasons] of cases) {
      const c = await createCarrier(t, user.headers, fields);
      expect(c.compliance_status, JSON.stringify(fields)).toBe(status);
      expect(c.is_verified).toBe(status === 'PASSED');
      const history = await checks(c.id, user.headers);
      expect(history[0], JSON.stringify(fields)).toMatchObject({
        provider: 'registry',
        verdict: status,
        reasons,
      });
    }
  });

  it('blocks a carrier whose phone another carrier with a different MC already uses', async () => {
    const { user } = await createTenant(t);
    const first = await createCarrier(t, user.headers, { mc_number: '100007', phone: '+1 312 555 0199' });
    expect(first.compliance_status).toBe('PASSED');
    const second = await createCarrier(t, user.headers, { mc_number: '100008', phone: '(312) 555-0199' });
    expect(second.compliance_status).toBe('BLOCKED');
    expect((await checks(second.id, user.headers))[0].reasons).toContain('shared_contact');
    // The same e-mail is a signal too, case aside; the carrier that held it first keeps its verdict.
    const holder = await createCarrier(t, user.headers, { mc_number: '100001', email: 'OPS@shared.example' });
    const newcomer = await createCarrier(t, user.headers, {
      dot_number: '200006',
      email: 'ops@shared.example',
    });
    expect(newcomer.compliance_status).toBe('BLOCKED');
    const recheck = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/carriers/${holder.id}`,
      headers: user.headers,
      payload: { email: 'ops@shared.example' },
    });
    expect(recheck.statusCode).toBe(200);
    const holderAfter = await waitForCarrier(
      t,
      user.headers,
      holder.id,
      (c) => c.last_verified_at !== holder.last_verified_at,
    );
    expect(holderAfter.compliance_status).toBe('PASSED');
  });

  it('checks batch carriers in the background, flagging shared contacts at once', async () => {
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, { mc_number: '100007', phone: '+13125550123' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/carriers/batch',
      headers: user.headers,
      payload: {
        carriers: [
          { carrier: { name: 'Background', mc_number: '100001' } },
          { carrier: { name: 'Copycat', mc_number: '100008', phone: '312-555-0123' } },
        ],
      },
    });
    const [good, copycat] = res.json().data;
    const immediate = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${copycat.id}`, headers: user.headers })
    ).json();
    expect(immediate.compliance_status).toBe('BLOCKED');
    const checked = await waitForCarrier(t, user.headers, good.id, (c) => c.compliance_status === 'PASSED');
    expect(checked.last_verified_provider).toBe('registry');
  });
});

/** Answers like the FMCSA QCMobile API for the carriers this test knows. */
function qcMobileStandIn() {
  const requests: { path: string; webKey: string | null }[] = [];
  const carriers: Record<string, object> = {
    '300001': {
      dotNumber: 400001,
      legalName: 'GOOD STANDING LLC',
      allowedToOperate: 'Y',
      statusCode: 'A',
      oosDate: null,
      commonAuthorityStatus: 'A',
      contractAuthorityStatus: 'N',
      bipdInsuranceOnFile: '750',
    },
    '300002': {
      dotNumber: 400002,
      legalName: 'PARKED INC',
      allowedToOperate: 'N',
      statusCode: 'A',
      oosDate: '2026-01-05',
      commonAuthorityStatus: 'I',
      contractAuthorityStatus: 'N',
      bipdInsuranceOnFile: '0',
    },
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    requests.push({ path: url.pathname, webKey: url.searchParams.get('webKey') });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.searchParams.get('webKey') !== 'test-web-key') return send(401, { content: 'Webkey not found' });
    const docket = /^\/qc\/services\/carriers\/docket-number\/(\d+)$/.exec(url.pathname)?.[1];
    if (docket === '300500') return send(500, { content: 'internal error' });
    if (docket === '300900') {
      setTimeout(() => send(200, { content: [{ carrier: carriers['300001'] }] }), 1500);
      return;
    }
    if (docket) return send(200, { content: carriers[docket] ? [{ carrier: carriers[docket] }] : [] });
    const dot = /^\/qc\/services\/carriers\/(\d+)$/.exec(url.pathname)?.[1];
    if (dot === '400001') return send(200, { content: { carrier: carriers['300001'] } });
    if (dot) return send(200, { content: null });
    send(404, {});
  });
  return { server, requests };
}

describe('compliance with the FMCSA provider', () => {
  const standIn = qcMobileStandIn();
  let baseUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(standIn.server.address() as AddressInfo).port}/qc/services`;
  });
  afterAll(() => new Promise<void>((resolve) => standIn.server.close(() => resolve())));
  const t = useTestApp({
    env: {
      COMPLIANCE_PROVIDER: 'fmcsa',
      FMCSA_WEB_KEY: 'test-web-key',
      get FMCSA_BASE_URL() {
        return baseUrl;
      },
      COMPLIANCE_INLINE_BUDGET_MS: '400',
      WORKER_POLL_MS: '100',
    },
  });

  it('passes a carrier in good standing, looked up by docket number with the web key', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { mc_number: 'MC300001', dot_number: '400001' });
    expect(c).toMatchObject({
      compliance_status: 'PASSED',
      last_verified_provider: 'fmcsa',
      authorized_for_hire: true,
    });
    expect(standIn.requests).toContainEqual({
      path: '/qc/services/carriers/docket-number/300001',
      webKey: 'test-web-key',
    });
  });

  it('looks up by DOT when there is no MC', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: '400001' });
    expect(c.compliance_status).toBe('PASSED');
    expect(standIn.requests).toContainEqual({ path: '/qc/services/carriers/400001', webKey: 'test-web-key' });
  });

  it('blocks an out-of-service, uninsured carrier and one FMCSA does not know', async () => {
    const { user } = await createTenant(t);
    const parked = await createCarrier(t, user.headers, { mc_number: '300002' });
    expect(parked.compliance_status).toBe('BLOCKED');
    const reasons = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/carriers/${parked.id}/compliance-checks`,
        headers: user.headers,
      })
    ).json().data[0].reasons;
    expect(reasons).toEqual(
      expect.arrayContaining([
        'not_allowed_to_operate',
        'out_of_service',
        'not_authorized_for_hire',
        'no_insurance_on_file',
      ]),
    );
    const unknown = await createCarrier(t, user.headers, { mc_number: '300404' });
    expect(unknown.compliance_status).toBe('BLOCKED');
  });

  it('leaves a carrier UNVERIFIED when FMCSA answers 5xx', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { mc_number: '300500' });
    expect(c.compliance_status).toBe('UNVERIFIED');
    const history = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/carriers/${c.id}/compliance-checks`,
        headers: user.headers,
      })
    ).json().data;
    expect(history[0]).toMatchObject({ provider: 'fmcsa', verdict: 'UNVERIFIED', reasons: ['no_answer'] });
  });

  it('answers within the inline budget when FMCSA is slow, then checks in the background', async () => {
    const { user } = await createTenant(t);
    const started = Date.now();
    const c = await createCarrier(t, user.headers, { mc_number: '300900' });
    expect(Date.now() - started).toBeLessThan(1400);
    expect(c.compliance_status).toBe('UNVERIFIED');
    const later = await waitForCarrier(t, user.headers, c.id, (x) => x.compliance_status === 'PASSED', 8000);
    expect(later.last_verified_provider).toBe('fmcsa');
  });
});
