// How the agent read carriers' replies over a period, from its messages' stored readings.

import type pg from 'pg';

/** How carriers' replies of the period were read: by the rules alone, or with a chat model beside them. */
export async function readerAgreement(
  pool: pg.Pool,
  organizationId: string,
  range: { from: Date; to: Date },
) {
  const { rows } = await pool.query<{ read: string; by_model: string; disagreed: string }>(
    `SELECT count(*) AS read,
            count(*) FILTER (WHERE reading ? 'model') AS by_model,
            count(*) FILTER (WHERE reading->>'agreed' = 'false') AS disagreed
     FROM agent_messages
     WHERE organization_id = $1 AND direction = 'inbound' AND reading IS NOT NULL
       AND created_at >= $2 AND created_at < $3`,
    [organizationId, range.from.toISOString(), range.to.toISOString()],
  );
  const [row] = rows;
  return {
    replies_read: Number(row?.read ?? 0),
    read_by_chat_model: Number(row?.by_model ?? 0),
    reader_disagreements: Number(row?.disagreed ?? 0),
  };
}
