import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { RegistryProvider } from '../../src/integrations/compliance/registry-provider.js';
import { defined } from '../../src/lib/defined.js';
import { useTestApp } from '../helpers/app.js';
import {
  carrierAfterChecks,
  createCarrier,
  goodStanding,
  registryFile,
} from '../helpers/carrier-factories.js';
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
  goodStanding('100009', '200009', { authority_granted_at: null }),
]);

describe('compliance with the registry provider', () => {
  // No loop runs the compliance worker: a test runs its round.
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry, WORKERS_ENABLED: 'false' } });
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
      [{ mc_number: '100009' }, 'UNVERIFIED', ['authority_age_unknown']],
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
    const holderAfter = await carrierAfterChecks(t, user.headers, holder.id);
    expect(holderAfter.last_verified_at).not.toBe(holder.last_verified_at);
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
    const unchecked = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${good.id}`, headers: user.headers })
    ).json();
    expect(unchecked.last_verified_at).toBeNull();
    const checked = await carrierAfterChecks(t, user.headers, good.id);
    expect(checked).toMatchObject({ compliance_status: 'PASSED', last_verified_provider: 'registry' });
  });
});

describe('a registry provider without a snapshot', () => {
  const missing = `${registry}.missing`;
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: missing, WORKERS_ENABLED: 'false' } });

  it('says so once at startup, naming the file and how to get one, and answers each check no_data', async () => {
    const warning = await t.services.compliance.readiness();
    expect(warning).toContain(missing);
    expect(warning).toMatch(/no_data/);
    expect(warning).toMatch(/docs\/carrier-vetting\.md/);
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { mc_number: '100001' });
    expect(c).toMatchObject({
      compliance_status: 'UNVERIFIED',
      risk_level: 'medium',
      risk_reasons: ['no_data'],
    });
    const [check] = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/carriers/${c.id}/compliance-checks`,
        headers: user.headers,
      })
    ).json().data;
    expect(check).toMatchObject({
      verdict: 'UNVERIFIED',
      reasons: ['no_data'],
      detail: `no registry snapshot at ${missing}`,
    });
    // Not retried every few minutes: there is nothing to retry against.
    const due = await t.database.db.execute<{ due: string | null }>(
      sql`SELECT compliance_check_due_at AS due FROM carriers WHERE id = ${c.id}`,
    );
    expect(defined(due.rows[0], 'due.rows[0]').due).toBeNull();
  });

  it('with a snapshot, is ready and says nothing', async () => {
    const ready = new RegistryProvider(registry);
    expect(await ready.readiness()).toBeNull();
  });
});
