import { Link } from 'wouter';
import { useElpTest } from '../../api/calls';
import { Problem, when } from '../../ui/problem';

const COMPETENCIES = [
  ['conversational_communication', 'Conversational communication'],
  ['instruction_comprehension', 'Instruction comprehension'],
  ['sign_recognition', 'Sign recognition'],
  ['verbal_reporting', 'Verbal reporting'],
] as const;

/** An English-proficiency test: its competency scores (0-10 each) and every answer. */
export function ElpScreen({ testId }: { testId: string }) {
  const test = useElpTest(testId);
  if (test.error) {
    return (
      <section>
        <h1>ELP test</h1>
        <Problem error={test.error} />
      </section>
    );
  }
  const t = test.data;
  if (!t) return <p>Loading…</p>;
  return (
    <article>
      <p className="muted">
        <Link href="/calls">Calls</Link>
      </p>
      <h1>ELP test of {t.driver_name ?? t.phone_number ?? 'a driver'}</h1>
      <p className="muted">
        <span className="badge">{t.status}</span> · scoring {t.scoring_status ?? 'not started'} ·{' '}
        {when(t.created_at)}
        {t.carrier_name ? ` · ${t.carrier_name}` : ''}
        {t.call_id ? (
          <>
            {' '}
            · <Link href={`/calls/${t.call_id}`}>its call</Link>
          </>
        ) : null}
      </p>
      <section aria-labelledby="scores-h">
        <h2 id="scores-h">Competency scores</h2>
        <dl className="facts">
          {COMPETENCIES.map(([key, label]) => (
            <Score key={key} label={label} value={t[key]} of={10} />
          ))}
          <Score label="Total" value={t.total_score} of={40} />
          <dt>Answers</dt>
          <dd>
            {t.valid_answers ?? 0} valid of {t.questions_answered ?? 0} answered, {t.total_questions ?? 0}{' '}
            questions
          </dd>
        </dl>
        {t.notes ? <p className="wrap">{t.notes}</p> : null}
        <p className="muted">There is no pass or fail verdict: the scores are for a person to judge.</p>
      </section>
      <section aria-labelledby="answers-h">
        <h2 id="answers-h">Answers</h2>
        {t.answers.length === 0 ? <p>No answer recorded.</p> : null}
        <ol className="transcript">
          {t.answers.map((a) => (
            <li key={a.question_id}>
              <p>
                <strong>{a.question ?? a.question_id}</strong>{' '}
                <span className={`badge${a.valid ? '' : ' bad'}`}>{a.valid ? 'Valid' : 'Not valid'}</span>{' '}
                <span className="muted">
                  {a.step} · {a.competency.replaceAll('_', ' ')}
                </span>
              </p>
              <p className="wrap">{a.answer ?? '(no words recorded)'}</p>
            </li>
          ))}
        </ol>
      </section>
    </article>
  );
}

function Score({ label, value, of }: { label: string; value: number | null; of: number }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{value === null ? '—' : `${value} of ${of}`}</dd>
    </>
  );
}
