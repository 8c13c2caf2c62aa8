import { type FormEvent, useState } from 'react';
import { useCan } from '../../api/access';
import { errorFor } from '../../api/errors';
import { useLoadViews } from '../../api/loads';
import {
  type LoadStatusMapping,
  useDeleteView,
  useSetStatusMapping,
  useStatusMappings,
} from '../../api/settings';
import { useAnnounce } from '../../ui/announcer';
import { Field, Select } from '../../ui/field';
import { Problem } from '../../ui/problem';
import { STATUSES } from '../loads/board-query';

/** How TMS statuses map to load statuses, and the saved views of the load board. */
export function LoadsSection() {
  return (
    <>
      <Mappings />
      <Views />
    </>
  );
}

function Mappings() {
  const can = useCan();
  const mappings = useStatusMappings();
  const set = useSetStatusMapping();
  const announce = useAnnounce();
  const mayEdit = can('PUT /api/v1/load-status-mappings/{tms_status}');
  const [draft, setDraft] = useState<{ tms_status: string; load_status: LoadStatusMapping['load_status'] }>({
    tms_status: '',
    load_status: 'Created',
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate(draft, { onSuccess: () => announce(`${draft.tms_status} now maps to ${draft.load_status}`) });
  };
  return (
    <section aria-labelledby="mappings-h">
      <h2 id="mappings-h">Load statuses</h2>
      <p className="muted">How each TMS status maps to a load status; existing loads are remapped at once.</p>
      <Problem error={mappings.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">TMS status</th>
            <th scope="col">Load status</th>
            <th scope="col">Source</th>
            {mayEdit ? <th scope="col">Action</th> : null}
          </tr>
        </thead>
        <tbody>
          {mappings.data?.data.map((m) => (
            <tr key={`${m.source}-${m.tms_status}`}>
              <th scope="row">{m.tms_status}</th>
              <td>{m.load_status}</td>
              <td>{m.source === 'organization' ? 'This organization' : 'Default'}</td>
              {mayEdit ? (
                <td>
                  {m.source === 'organization' ? (
                    <button
                      type="button"
                      aria-label={`Use the default for ${m.tms_status}`}
                      onClick={() => set.mutate({ tms_status: m.tms_status, load_status: null })}
                    >
                      Use the default
                    </button>
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {mayEdit ? (
        <form className="inline" aria-label="Map a TMS status" onSubmit={submit}>
          <Field
            label="TMS status"
            value={draft.tms_status}
            onChange={(e) => setDraft({ ...draft, tms_status: e.target.value })}
            error={errorFor(set.error, 'tms_status')}
          />
          <Select
            label="Maps to"
            value={draft.load_status}
            onChange={(e) =>
              setDraft({ ...draft, load_status: STATUSES.find((s) => s === e.target.value) ?? 'Created' })
            }
            options={STATUSES.map((s) => ({ value: s, label: s }))}
          />
          <button type="submit">Save mapping</button>
        </form>
      ) : null}
      {set.error && !errorFor(set.error, 'tms_status') ? <Problem error={set.error} /> : null}
    </section>
  );
}

function Views() {
  const views = useLoadViews();
  const remove = useDeleteView();
  const announce = useAnnounce();
  return (
    <section aria-labelledby="views-h">
      <h2 id="views-h">Saved views</h2>
      <p className="muted">Views are saved from the load board; the API says which of them you may delete.</p>
      <Problem error={views.error ?? remove.error} />
      {views.data && views.data.data.length === 0 ? <p>No saved view.</p> : null}
      <ul className="cards">
        {views.data?.data.map((v) => (
          <li key={v.id} className="card">
            <strong>{v.name}</strong> · {v.visibility} · {Object.keys(v.filters).join(', ') || 'no filter'}{' '}
            <button
              type="button"
              aria-label={`Delete view ${v.name}`}
              onClick={() => remove.mutate(v.id, { onSuccess: () => announce(`View ${v.name} deleted`) })}
            >
              Delete view
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
