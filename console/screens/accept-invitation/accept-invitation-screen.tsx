import { type FormEvent, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { errorFor } from '../../api/errors';
import { acceptInvitation } from '../../api/team';
import { useSession } from '../../session-context';
import { Field } from '../../ui/field';
import { Problem } from '../../ui/problem';

/**
 * The invitation link's page (`/accept-invitation?token=…`): join with a name and a password (an
 * existing account keeps its own: enter it), then signed in with the refresh cookie like any sign-in.
 */
export function AcceptInvitationScreen() {
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const { signIn } = useSession();
  const [, navigate] = useLocation();
  const [draft, setDraft] = useState({ email: '', name: '', password: '' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await acceptInvitation({
        token,
        password: draft.password,
        ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
      });
      await signIn(draft.email, draft.password);
      navigate('/loads', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const onField = ['password', 'name'].some((f) => errorFor(error, f));
  return (
    <main id="main" className="sign-in">
      <h1>Join your team on Envoy</h1>
      {token ? null : (
        <p role="alert">This link has no invitation token: open the link from the e-mail again.</p>
      )}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field
          label="Email"
          type="email"
          autoComplete="username"
          value={draft.email}
          onChange={(e) => setDraft({ ...draft, email: e.target.value })}
          hint="The address the invitation was sent to"
        />
        <Field
          label="Your name"
          value={draft.name}
          onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          error={errorFor(error, 'name')}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          value={draft.password}
          onChange={(e) => setDraft({ ...draft, password: e.target.value })}
          error={errorFor(error, 'password')}
          hint="At least 12 characters; with an account already, its own password"
        />
        {onField ? null : <Problem error={error} />}
        <button type="submit" className="primary" disabled={busy || !token}>
          Join
        </button>
      </form>
    </main>
  );
}
