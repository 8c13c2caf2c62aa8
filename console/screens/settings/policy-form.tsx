import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiError, errorFor } from '../../api/errors';
import { useAnnounce } from '../../ui/announcer';
import { Field, Select } from '../../ui/field';
import { Problem } from '../../ui/problem';

/**
 * One field of a settings form: where it lives in the resource (`negotiation.max_rounds`), how it
 * is edited, and what it means (the contract's own words, shortened). The form never checks a value:
 * the API does, and its refusal is shown on the field it names.
 */
export interface SettingField {
  path: string;
  label: string;
  meaning: string;
  kind: 'number' | 'boolean' | 'choice' | 'list' | 'schedule';
  options?: readonly string[];
}

type Draft = Record<string, string | boolean>;

const get = (obj: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>((o, k) => (o && typeof o === 'object' ? Reflect.get(o, k) : undefined), obj);

/** A concession schedule as a person writes it: "72 h: 2%, 24 h: 4%, 0 h: 10%". */
const scheduleText = (v: unknown) =>
  Array.isArray(v)
    ? v
        .map(
          (s: { min_hours_to_pickup: number; max_concession_pct: number }) =>
            `${s.min_hours_to_pickup} h: ${s.max_concession_pct}%`,
        )
        .join(', ')
    : '';

function scheduleOf(text: string) {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [hours = '', pct = ''] = part.split(':');
      return {
        min_hours_to_pickup: Number(hours.replace(/h/i, '').trim()),
        max_concession_pct: Number(pct.replace('%', '').trim()),
      };
    });
}

function draftOf(fields: readonly SettingField[], value: unknown): Draft {
  const draft: Draft = {};
  for (const f of fields) {
    const v = get(value, f.path);
    if (f.kind === 'boolean') draft[f.path] = v === true;
    else if (f.kind === 'list') draft[f.path] = Array.isArray(v) ? v.join(', ') : '';
    else if (f.kind === 'schedule') draft[f.path] = scheduleText(v);
    else draft[f.path] = v === null || v === undefined ? '' : String(v);
  }
  return draft;
}

/** The value to send for a field as typed: a number stays what was typed when it is not one, for the API to refuse. */
function sent(f: SettingField, v: string | boolean): unknown {
  if (f.kind === 'boolean') return v;
  const text = String(v).trim();
  if (f.kind === 'number') return text === '' ? null : Number.isNaN(Number(text)) ? text : Number(text);
  if (f.kind === 'list')
    return text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (f.kind === 'schedule') return scheduleOf(text);
  return text;
}

/** Only the fields changed, nested as the resource nests them. */
function patchOf(fields: readonly SettingField[], before: Draft, draft: Draft): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const f of fields) {
    if (before[f.path] === draft[f.path]) continue;
    const keys = f.path.split('.');
    let at = patch;
    for (const k of keys.slice(0, -1)) {
      if (typeof at[k] !== 'object' || at[k] === null) at[k] = {};
      at = at[k] as Record<string, unknown>;
    }
    at[keys[keys.length - 1] ?? f.path] = sent(f, draft[f.path] ?? '');
  }
  return patch;
}

/** The field an error names: its param, or a path within it (`negotiation.concession_schedule[1]...`). */
const fieldOf = (fields: readonly SettingField[], error: unknown) =>
  error instanceof ApiError && error.param
    ? (fields.find(
        (f) =>
          error.param === f.path ||
          error.param?.startsWith(`${f.path}[`) ||
          error.param?.startsWith(`${f.path}.`),
      ) ?? null)
    : null;

interface PolicyFormProps {
  title: string;
  fields: readonly SettingField[];
  value: unknown;
  editable: boolean;
  saving: boolean;
  error: unknown;
  onSave(patch: Record<string, unknown>, done: () => void): void;
  children?: ReactNode;
}

/** A settings form: each field with its meaning; only changed fields are sent; a refusal stays on its field. */
export function PolicyForm({
  title,
  fields,
  value,
  editable,
  saving,
  error,
  onSave,
  children,
}: PolicyFormProps) {
  const [before, setBefore] = useState(() => draftOf(fields, value));
  const [draft, setDraft] = useState(before);
  const announce = useAnnounce();
  const refused = fieldOf(fields, error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const patch = patchOf(fields, before, draft);
    if (Object.keys(patch).length === 0) {
      announce('Nothing changed');
      return;
    }
    onSave(patch, () => {
      setBefore(draft);
      announce(`${title} saved`);
    });
  };
  return (
    <form className="settings-form" aria-label={title} onSubmit={submit}>
      {children}
      {fields.map((f) => {
        const message =
          refused === f
            ? (errorFor(error, error instanceof ApiError ? (error.param ?? '') : '') ?? null)
            : null;
        const v = draft[f.path];
        const set = (next: string | boolean) => setDraft({ ...draft, [f.path]: next });
        if (f.kind === 'boolean') {
          return (
            <div key={f.path} className={`field check-field${message ? ' field-invalid' : ''}`}>
              <label className="check">
                <input
                  type="checkbox"
                  checked={v === true}
                  disabled={!editable}
                  onChange={(e) => set(e.target.checked)}
                />
                {f.label}
              </label>
              <small className="hint">{f.meaning}</small>
              {message ? <small className="field-error">{message}</small> : null}
            </div>
          );
        }
        if (f.kind === 'choice') {
          return (
            <div key={f.path}>
              <Select
                label={f.label}
                value={String(v)}
                disabled={!editable}
                onChange={(e) => set(e.target.value)}
                options={(f.options ?? []).map((o) => ({ value: o, label: o }))}
              />
              <small className="hint">{f.meaning}</small>
              {message ? <small className="field-error">{message}</small> : null}
            </div>
          );
        }
        return (
          <Field
            key={f.path}
            label={f.label}
            type={f.kind === 'number' ? 'number' : 'text'}
            inputMode={f.kind === 'number' ? 'decimal' : undefined}
            step="any"
            readOnly={!editable}
            value={String(v)}
            onChange={(e) => set(e.target.value)}
            hint={f.meaning}
            error={message}
          />
        );
      })}
      {error && !refused ? <Problem error={error} /> : null}
      {editable ? (
        <button type="submit" className="primary" disabled={saving}>
          Save {title.toLowerCase()}
        </button>
      ) : (
        <p className="muted">Your role may read these settings, not change them.</p>
      )}
    </form>
  );
}
