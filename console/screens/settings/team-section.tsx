import { type FormEvent, useState } from 'react';
import { useCan } from '../../api/access';
import { ApiError, errorFor } from '../../api/errors';
import {
  ROLES,
  type Role,
  type TeamEntry,
  useChangeRole,
  useInvite,
  useRemoveMember,
  useTeam,
  useWithdrawInvitation,
} from '../../api/team';
import { useAnnounce } from '../../ui/announcer';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { Field, Select } from '../../ui/field';
import { Problem, when } from '../../ui/problem';

/** What a refusal of a team change means, beside the API's own message. */
function explain(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'last_owner')
    return 'An organization always keeps one OWNER: make another member OWNER first, then change or remove this one.';
  if (error.status === 403 && error.param === 'role')
    return 'An ADMIN can neither make an OWNER nor change or remove one; an OWNER can.';
  return null;
}

function TeamProblem({ error }: { error: unknown }) {
  const why = explain(error);
  return (
    <>
      <Problem error={error} />
      {why ? <p className="hint">{why}</p> : null}
    </>
  );
}

/** Members and invitations: invite, change a role, remove, withdraw an invitation. */
export function TeamSection() {
  const can = useCan();
  const allowed = can('GET /api/v1/members');
  const team = useTeam(allowed);
  const changeRole = useChangeRole();
  const remove = useRemoveMember();
  const withdraw = useWithdrawInvitation();
  const announce = useAnnounce();
  const [removing, setRemoving] = useState<TeamEntry | null>(null);
  if (!allowed) {
    return (
      <section aria-labelledby="team-h">
        <h2 id="team-h">Members</h2>
        <p>Your role does not manage the team.</p>
      </section>
    );
  }
  const rows = team.data?.data ?? [];
  return (
    <section aria-labelledby="team-h">
      <h2 id="team-h">Members</h2>
      <Problem error={team.error} />
      <TeamProblem error={changeRole.error ?? withdraw.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Name</th>
            <th scope="col">State</th>
            <th scope="col">Role</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={m.user_id ?? m.invitation_id ?? m.email}>
              <th scope="row">{m.email}</th>
              <td>{m.name ?? '—'}</td>
              <td>
                {m.status === 'active'
                  ? `Member since ${when(m.joined_at)}`
                  : `${m.status === 'expired' ? 'Invitation expired' : 'Invited'} · until ${when(m.invitation_expires_at)}`}
              </td>
              <td>
                {m.status === 'active' && m.user_id && can('PATCH /api/v1/members/{user_id}') ? (
                  <RolePicker
                    entry={m}
                    busy={changeRole.isPending}
                    onChange={(role) =>
                      changeRole.mutate(
                        { userId: m.user_id ?? '', role },
                        { onSuccess: () => announce(`${m.email} is now ${role}`) },
                      )
                    }
                  />
                ) : (
                  m.role
                )}
              </td>
              <td>
                {m.status === 'active' && can('DELETE /api/v1/members/{user_id}') ? (
                  <button
                    type="button"
                    aria-label={`Remove ${m.email}`}
                    onClick={() => {
                      remove.reset();
                      setRemoving(m);
                    }}
                  >
                    Remove
                  </button>
                ) : null}
                {m.status !== 'active' &&
                m.invitation_id &&
                can('DELETE /api/v1/members/invitations/{invitation_id}') ? (
                  <button
                    type="button"
                    aria-label={`Withdraw invitation of ${m.email}`}
                    onClick={() =>
                      withdraw.mutate(m.invitation_id ?? '', {
                        onSuccess: () => announce(`Invitation of ${m.email} withdrawn`),
                      })
                    }
                  >
                    Withdraw invitation
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {can('POST /api/v1/members') ? <InviteForm /> : null}
      {removing ? (
        <ConfirmDialog
          title={`Remove ${removing.email}?`}
          confirmLabel="Remove"
          busy={remove.isPending}
          onCancel={() => setRemoving(null)}
          onConfirm={() =>
            remove.mutate(removing.user_id ?? '', {
              onSuccess: () => {
                announce(`${removing.email} removed`);
                setRemoving(null);
              },
            })
          }
        >
          <p>They leave the organization and every session of theirs ends at once.</p>
          <TeamProblem error={remove.error} />
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function RolePicker({
  entry,
  busy,
  onChange,
}: {
  entry: TeamEntry;
  busy: boolean;
  onChange(role: Role): void;
}) {
  const [role, setRole] = useState<Role>(entry.role);
  return (
    <span className="inline">
      <Select
        label={`Role of ${entry.email}`}
        value={role}
        onChange={(e) => setRole(ROLES.find((r) => r === e.target.value) ?? entry.role)}
        options={ROLES.map((r) => ({ value: r, label: r }))}
      />
      <button type="button" disabled={busy || role === entry.role} onClick={() => onChange(role)}>
        Change role
      </button>
    </span>
  );
}

function InviteForm() {
  const invite = useInvite();
  const announce = useAnnounce();
  const [draft, setDraft] = useState({ email: '', name: '', role: 'MEMBER' as Role });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate(
      { email: draft.email, role: draft.role, ...(draft.name.trim() ? { name: draft.name.trim() } : {}) },
      {
        onSuccess: () => {
          announce(`Invitation sent to ${draft.email}`);
          setDraft({ email: '', name: '', role: 'MEMBER' });
        },
      },
    );
  };
  const onField = ['email', 'name'].some((f) => errorFor(invite.error, f));
  return (
    <form className="inline" aria-labelledby="invite-h" onSubmit={submit}>
      <h3 id="invite-h" className="visually-hidden">
        Invite a member
      </h3>
      <Field
        label="Invitee e-mail"
        type="email"
        value={draft.email}
        onChange={(e) => setDraft({ ...draft, email: e.target.value })}
        error={errorFor(invite.error, 'email')}
      />
      <Field
        label="Invitee name"
        value={draft.name}
        onChange={(e) => setDraft({ ...draft, name: e.target.value })}
        error={errorFor(invite.error, 'name')}
      />
      <Select
        label="Invitee role"
        value={draft.role}
        onChange={(e) => setDraft({ ...draft, role: ROLES.find((r) => r === e.target.value) ?? 'MEMBER' })}
        options={ROLES.map((r) => ({ value: r, label: r }))}
      />
      <button type="submit" className="primary" disabled={invite.isPending}>
        Invite
      </button>
      {onField ? null : <TeamProblem error={invite.error} />}
    </form>
  );
}
