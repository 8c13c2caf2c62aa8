import { type FormEvent, useState } from 'react';
import { useCan } from '../../api/access';
import { errorFor } from '../../api/errors';
import {
  useAddVoiceNumber,
  useDeleteVoiceTemplate,
  useRemoveVoiceNumber,
  useSaveVoiceTemplate,
  useVoiceNumbers,
  useVoiceTemplates,
  type VoiceTemplate,
} from '../../api/voice';
import { useAnnounce } from '../../ui/announcer';
import { Field, Select } from '../../ui/field';
import { Problem } from '../../ui/problem';

/** The organization's voice numbers and its call scripts. */
export function VoiceSection() {
  return (
    <>
      <Numbers />
      <Scripts />
    </>
  );
}

function Numbers() {
  const can = useCan();
  const allowed = can('GET /api/v1/voice/numbers');
  const numbers = useVoiceNumbers(allowed);
  const add = useAddVoiceNumber();
  const remove = useRemoveVoiceNumber();
  const announce = useAnnounce();
  const [draft, setDraft] = useState({ phone_number_id: '', phone_number: '', outbound: false });
  if (!allowed) {
    return (
      <section aria-labelledby="numbers-h">
        <h2 id="numbers-h">Voice numbers</h2>
        <p>Your role does not manage voice numbers.</p>
      </section>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(
      {
        phone_number_id: draft.phone_number_id,
        outbound: draft.outbound,
        ...(draft.phone_number ? { phone_number: draft.phone_number } : {}),
      },
      { onSuccess: () => announce('Number registered') },
    );
  };
  const onField = ['phone_number_id', 'phone_number'].some((f) => errorFor(add.error, f));
  return (
    <section aria-labelledby="numbers-h">
      <h2 id="numbers-h">Voice numbers</h2>
      <Problem error={numbers.error ?? remove.error} />
      {numbers.data && numbers.data.data.length === 0 ? <p>No number registered.</p> : null}
      <ul className="cards">
        {numbers.data?.data.map((n) => (
          <li key={n.id} className="card">
            {n.phone_number ?? n.phone_number_id} · {n.provider}
            {n.outbound ? ' · caller ID' : ''}{' '}
            {can('DELETE /api/v1/voice/numbers/{voice_number_id}') ? (
              <button
                type="button"
                onClick={() => remove.mutate(n.id)}
                aria-label={`Forget number ${n.phone_number ?? n.phone_number_id}`}
              >
                Forget number
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {can('POST /api/v1/voice/numbers') ? (
        <form className="inline" aria-label="Register a voice number" onSubmit={submit}>
          <Field
            label="Platform number id"
            value={draft.phone_number_id}
            onChange={(e) => setDraft({ ...draft, phone_number_id: e.target.value })}
            error={errorFor(add.error, 'phone_number_id')}
          />
          <Field
            label="Number"
            type="tel"
            value={draft.phone_number}
            onChange={(e) => setDraft({ ...draft, phone_number: e.target.value })}
            error={errorFor(add.error, 'phone_number')}
          />
          <label className="check">
            <input
              type="checkbox"
              checked={draft.outbound}
              onChange={(e) => setDraft({ ...draft, outbound: e.target.checked })}
            />
            Caller ID for outbound calls
          </label>
          <button type="submit">Register number</button>
          {onField ? null : <Problem error={add.error} />}
        </form>
      ) : null}
    </section>
  );
}

const PURPOSES = ['load_booking', 'elp', 'tracking_check', 'inbound_sales'] as const;

function Scripts() {
  const can = useCan();
  const templates = useVoiceTemplates();
  const [editing, setEditing] = useState<VoiceTemplate | 'new' | null>(null);
  const remove = useDeleteVoiceTemplate();
  return (
    <section aria-labelledby="scripts-h">
      <h2 id="scripts-h">Call scripts</h2>
      <Problem error={templates.error ?? remove.error} />
      <ul className="cards">
        {templates.data?.data.map((t) => (
          <li key={t.id} className="card">
            <p className="card-title">
              <strong>{t.name}</strong> · {t.purpose}
              {t.is_default ? ' · default' : ''}
              {t.is_builtin ? ' · built in (read-only)' : ''}
            </p>
            <p className="muted wrap">{t.first_message}</p>
            {!t.is_builtin && can('PATCH /api/v1/voice-templates/{template_id}') ? (
              <div className="actions">
                <button type="button" aria-label={`Edit script ${t.name}`} onClick={() => setEditing(t)}>
                  Edit script
                </button>
                <button
                  type="button"
                  aria-label={`Delete script ${t.name}`}
                  onClick={() => remove.mutate(t.id)}
                >
                  Delete script
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ul>
      {can('POST /api/v1/voice-templates') && editing === null ? (
        <button type="button" onClick={() => setEditing('new')}>
          New call script
        </button>
      ) : null}
      {editing ? (
        <ScriptForm
          key={editing === 'new' ? 'new' : editing.id}
          template={editing === 'new' ? null : editing}
          onDone={() => setEditing(null)}
        />
      ) : null}
    </section>
  );
}

function ScriptForm({ template, onDone }: { template: VoiceTemplate | null; onDone(): void }) {
  const save = useSaveVoiceTemplate();
  const announce = useAnnounce();
  const [draft, setDraft] = useState({
    name: template?.name ?? '',
    purpose: template?.purpose ?? 'load_booking',
    first_message: template?.first_message ?? '',
    instructions: template?.instructions ?? '',
    is_default: template?.is_default ?? false,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(
      { id: template?.id ?? null, body: draft },
      {
        onSuccess: () => {
          announce(`Call script ${draft.name} saved`);
          onDone();
        },
      },
    );
  };
  const onField = ['name', 'first_message', 'instructions'].some((f) => errorFor(save.error, f));
  return (
    <form
      className="stack"
      aria-label={template ? `Edit ${template.name}` : 'New call script'}
      onSubmit={submit}
    >
      <Field
        label="Script name"
        value={draft.name}
        onChange={(e) => setDraft({ ...draft, name: e.target.value })}
        error={errorFor(save.error, 'name')}
      />
      <Select
        label="Purpose"
        value={draft.purpose}
        onChange={(e) =>
          setDraft({ ...draft, purpose: PURPOSES.find((p) => p === e.target.value) ?? 'load_booking' })
        }
        options={PURPOSES.map((p) => ({ value: p, label: p }))}
      />
      <Field
        label="First message"
        value={draft.first_message}
        onChange={(e) => setDraft({ ...draft, first_message: e.target.value })}
        error={errorFor(save.error, 'first_message')}
        hint="Placeholders such as {{load_number}} and {{carrier_name}}"
      />
      <label className="field">
        <span>Instructions</span>
        <textarea
          rows={8}
          value={draft.instructions}
          aria-invalid={errorFor(save.error, 'instructions') ? true : undefined}
          onChange={(e) => setDraft({ ...draft, instructions: e.target.value })}
        />
        {errorFor(save.error, 'instructions') ? (
          <small className="field-error">{errorFor(save.error, 'instructions')}</small>
        ) : null}
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={draft.is_default}
          onChange={(e) => setDraft({ ...draft, is_default: e.target.checked })}
        />
        The organization's default for this purpose
      </label>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save script
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {onField ? null : <Problem error={save.error} />}
    </form>
  );
}
