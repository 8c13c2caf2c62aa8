import { type FormEvent, useState } from 'react';
import { useCan } from '../../api/access';
import { useApiKeys, useCreateApiKey, useDeactivateApiKey, useRegenerateApiKey } from '../../api/api-keys';
import { errorFor } from '../../api/errors';
import { useAnnounce } from '../../ui/announcer';
import { Field } from '../../ui/field';
import { Problem, when } from '../../ui/problem';
import { OnceSecret } from '../../ui/secret';

/** API keys: create (the key shown once, with a copy button), regenerate, deactivate, expiry. */
export function ApiKeysSection() {
  const can = useCan();
  const allowed = can('GET /api/v1/api-keys');
  const list = useApiKeys(allowed);
  const regenerate = useRegenerateApiKey();
  const deactivate = useDeactivateApiKey();
  const announce = useAnnounce();
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [overlap, setOverlap] = useState('86400');
  if (!allowed) {
    return (
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">API keys</h2>
        <p>Your role does not manage API keys.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      {secret ? (
        <OnceSecret label={secret.label} value={secret.value} onDone={() => setSecret(null)} />
      ) : null}
      {can('POST /api/v1/api-keys') ? (
        <CreateKey onCreated={(key) => setSecret({ label: 'New API key', value: key })} />
      ) : null}
      <Problem error={list.error ?? deactivate.error} />
      <Field
        label="Old key keeps working after a regeneration (seconds)"
        type="number"
        value={overlap}
        onChange={(e) => setOverlap(e.target.value)}
        error={errorFor(regenerate.error, 'expire_old_in_seconds')}
        hint="At most 604800 (7 days)"
      />
      {regenerate.error && !errorFor(regenerate.error, 'expire_old_in_seconds') ? (
        <Problem error={regenerate.error} />
      ) : null}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">State</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.data.map((k) => (
            <tr key={k.id}>
              <th scope="row">
                {k.name}
                {k.description ? <small className="muted"> · {k.description}</small> : null}
              </th>
              <td>{k.is_active ? 'Active' : 'Deactivated'}</td>
              <td>{k.expires_at ? when(k.expires_at) : 'Never'}</td>
              <td>{when(k.last_used_at)}</td>
              <td className="actions">
                {k.is_active ? (
                  <>
                    <button
                      type="button"
                      aria-label={`Regenerate ${k.name}`}
                      onClick={() =>
                        regenerate.mutate(
                          { id: k.id, expire_old_in_seconds: Number(overlap) },
                          {
                            onSuccess: (r) => {
                              setSecret({ label: `Replacement of ${k.name}`, value: r.key });
                              announce(`${k.name} regenerated`);
                            },
                          },
                        )
                      }
                    >
                      Regenerate
                    </button>
                    <button
                      type="button"
                      aria-label={`Deactivate ${k.name}`}
                      onClick={() =>
                        deactivate.mutate(k.id, { onSuccess: () => announce(`${k.name} deactivated`) })
                      }
                    >
                      Deactivate
                    </button>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated(key: string): void }) {
  const create = useCreateApiKey();
  const [draft, setDraft] = useState({ name: '', description: '', expires_at: '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      {
        name: draft.name,
        ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
        ...(draft.expires_at ? { expires_at: new Date(`${draft.expires_at}T00:00:00Z`).toISOString() } : {}),
      },
      {
        onSuccess: (k) => {
          onCreated(k.key);
          setDraft({ name: '', description: '', expires_at: '' });
        },
      },
    );
  };
  const onField = ['name', 'description', 'expires_at'].some((f) => errorFor(create.error, f));
  return (
    <form className="inline" aria-label="Create an API key" onSubmit={submit}>
      <Field
        label="Key name"
        value={draft.name}
        onChange={(e) => setDraft({ ...draft, name: e.target.value })}
        error={errorFor(create.error, 'name')}
      />
      <Field
        label="Key description"
        value={draft.description}
        onChange={(e) => setDraft({ ...draft, description: e.target.value })}
        error={errorFor(create.error, 'description')}
      />
      <Field
        label="Expires on"
        type="date"
        value={draft.expires_at}
        onChange={(e) => setDraft({ ...draft, expires_at: e.target.value })}
        error={errorFor(create.error, 'expires_at')}
        hint="Empty: never"
      />
      <button type="submit" className="primary" disabled={create.isPending}>
        Create API key
      </button>
      {onField ? null : <Problem error={create.error} />}
    </form>
  );
}
