import { type Carrier, type ComplianceCheck, useComplianceChecks } from '../../api/carriers';
import { Problem, when } from '../../ui/problem';

/** When each current signal was first found: the oldest of the latest checks that carried it without a break. */
function firstSeen(code: string, checks: readonly ComplianceCheck[]): string | null {
  let seen: string | null = null;
  for (const check of checks) {
    if (!check.signals.some((s) => s.code === code)) break;
    seen = check.checked_at;
  }
  return seen;
}

const ACTION = { block: 'Blocks', review: 'Sends to review', ignore: 'Ignored' } as const;

/** The carrier's vetting: status, risk and every fraud signal with its evidence and date; the checks. */
export function VettingSection({ carrier: c }: { carrier: Carrier }) {
  const checks = useComplianceChecks(c.id);
  const list = checks.data?.data ?? [];
  return (
    <>
      <section aria-labelledby="vetting-h">
        <h2 id="vetting-h">Vetting</h2>
        <dl className="facts">
          <dt>Compliance status</dt>
          <dd>{c.compliance_status}</dd>
          <dt>Risk level</dt>
          <dd>
            {c.risk_level ?? 'not assessed'}
            {c.risk_reasons.length ? ` (${c.risk_reasons.join(', ')})` : ''}
          </dd>
          <dt>Last checked</dt>
          <dd>
            {when(c.last_verified_at)}
            {c.last_verified_provider ? ` with ${c.last_verified_provider}` : ''}
          </dd>
          <dt>Insurance expires</dt>
          <dd>{when(c.insurance_expiration)}</dd>
        </dl>
        <h3>Fraud signals</h3>
        {c.fraud_signals.length === 0 ? (
          <p>No fraud signal.</p>
        ) : (
          <table className="signals">
            <thead>
              <tr>
                <th scope="col">Signal</th>
                <th scope="col">Policy</th>
                <th scope="col">Evidence</th>
                <th scope="col">Found</th>
              </tr>
            </thead>
            <tbody>
              {c.fraud_signals.map((s) => (
                <tr key={s.code}>
                  <th scope="row">{s.code.replaceAll('_', ' ')}</th>
                  <td>{ACTION[s.action]}</td>
                  <td className="wrap">{s.evidence}</td>
                  <td>{when(firstSeen(s.code, list) ?? c.last_verified_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="checks-h">
        <h2 id="checks-h">Compliance checks</h2>
        <Problem error={checks.error} />
        {checks.data && list.length === 0 ? <p>Not checked yet.</p> : null}
        <ol className="timeline">
          {list.map((k) => (
            <li key={k.id}>
              <strong>{k.verdict}</strong> · {when(k.checked_at)} · {k.provider} · risk {k.risk_level ?? '—'}
              {k.reasons.length ? ` · ${k.reasons.join(', ')}` : ''}
              {k.detail ? <p className="muted wrap">{k.detail}</p> : null}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
