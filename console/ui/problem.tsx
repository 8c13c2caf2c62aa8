import { ApiError } from '../api/errors';

/** An API error as a rep reads it: what happened, and the request id to quote to support. */
export function Problem({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <p role="alert" className="problem">
      <strong>{e?.offline ? 'Connection lost.' : 'Not done.'}</strong>{' '}
      {e ? e.message : 'Something went wrong; try again.'}
      {e?.code && !e.offline ? <span className="code"> ({e.code})</span> : null}
    </p>
  );
}

export const money = (n: number | null | undefined) =>
  n === null || n === undefined
    ? '—'
    : n.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });

export const when = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }) : '—';

export const day = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' }) : '—';
