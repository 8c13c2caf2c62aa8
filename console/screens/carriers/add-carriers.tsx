import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { type BatchResult, useCreateCarrier, useUploadCarriers } from '../../api/carriers';
import { errorFor } from '../../api/errors';
import { useAnnounce } from '../../ui/announcer';
import { Field } from '../../ui/field';
import { Problem } from '../../ui/problem';

const FIELDS = [
  { key: 'name', label: 'Name', required: true },
  { key: 'mc_number', label: 'MC number' },
  { key: 'dot_number', label: 'DOT number' },
  { key: 'phone', label: 'Phone' },
  { key: 'email', label: 'E-mail' },
  { key: 'home_state', label: 'Home state' },
] as const;
type Draft = Record<(typeof FIELDS)[number]['key'], string>;
const EMPTY: Draft = { name: '', mc_number: '', dot_number: '', phone: '', email: '', home_state: '' };

/** Create one carrier, or upload the batch CSV and read each row's outcome. */
export function AddCarriers() {
  return (
    <section aria-labelledby="add-h">
      <h2 id="add-h">Add carriers</h2>
      <div className="columns">
        <CreateCarrier />
        <UploadCarriers />
      </div>
    </section>
  );
}

function CreateCarrier() {
  const create = useCreateCarrier();
  const announce = useAnnounce();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [created, setCreated] = useState<{ id: string; name: string } | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Only the fields filled in are sent; the API validates each and names the one it refuses.
    const body = Object.fromEntries(Object.entries(draft).filter(([, v]) => v.trim() !== ''));
    create.mutate(
      { name: draft.name, ...body },
      {
        onSuccess: (c) => {
          const carrier = 'name' in c ? c : null;
          if (carrier) setCreated({ id: carrier.id, name: carrier.name });
          announce(`Carrier ${draft.name} saved`);
          setDraft(EMPTY);
        },
      },
    );
  };
  const fieldError = FIELDS.some((f) => errorFor(create.error, f.key));
  return (
    <form className="stack" aria-labelledby="create-h" onSubmit={submit}>
      <h3 id="create-h">Create a carrier</h3>
      {FIELDS.map((f) => (
        <Field
          key={f.key}
          label={f.label}
          required={'required' in f}
          value={draft[f.key]}
          onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
          error={errorFor(create.error, f.key)}
        />
      ))}
      <button type="submit" className="primary" disabled={create.isPending}>
        Create carrier
      </button>
      {create.error && !fieldError ? <Problem error={create.error} /> : null}
      {created ? (
        <p>
          Saved: <Link href={`/carriers/${created.id}`}>{created.name}</Link>
        </p>
      ) : null}
    </form>
  );
}

function UploadCarriers() {
  const upload = useUploadCarriers();
  const [file, setFile] = useState<File | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (file) upload.mutate(await file.text());
  };
  return (
    <form className="stack" aria-labelledby="upload-h" onSubmit={(e) => void submit(e)}>
      <h3 id="upload-h">Upload the carrier CSV</h3>
      <p className="muted">
        A header row naming the carrier fields (name, mc_number, dot_number, phone, email, equipment_types
        separated by ;, ...), then one carrier per row; at most 1,000 rows.
      </p>
      <Field
        label="Carrier CSV file"
        type="file"
        accept=".csv,text/csv"
        required
        onChange={(e) => setFile(e.target.files?.[0] ?? null)}
      />
      <button type="submit" className="primary" disabled={!file || upload.isPending}>
        Upload CSV
      </button>
      <Problem error={upload.error} />
      {upload.data ? <Outcomes result={upload.data} /> : null}
    </form>
  );
}

const OUTCOME = { created: 'Created', updated: 'Updated', skipped: 'Skipped', failed: 'Failed' } as const;

/** Each row's outcome, by its line in the file (the header is line 1). */
function Outcomes({ result }: { result: BatchResult }) {
  const s = result.summary;
  return (
    <section aria-labelledby="outcomes-h">
      <h4 id="outcomes-h">Outcome of each row</h4>
      <p role="status">
        {s.total} rows: {s.created} created, {s.updated} updated, {s.skipped} skipped, {s.failed} failed.
      </p>
      <table className="outcomes">
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Outcome</th>
            <th scope="col">Carrier or reason</th>
          </tr>
        </thead>
        <tbody>
          {result.data.map((row) => (
            <tr key={row.index}>
              <th scope="row">{row.index + 2}</th>
              <td>
                <span className={`badge${row.status === 'failed' ? ' bad' : ''}`}>{OUTCOME[row.status]}</span>
              </td>
              <td>
                {row.error ? (
                  <>
                    {row.error.message} <span className="code">({row.error.code})</span>
                  </>
                ) : row.id ? (
                  <Link href={`/carriers/${row.id}`}>{row.external_id ?? row.id}</Link>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
