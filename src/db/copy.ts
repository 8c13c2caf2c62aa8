import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { cooperative } from '../lib/yielding.js';
import type { Tx } from './client.js';

/**
 * Bulk writes with COPY: PostgreSQL reads rows as tab-separated text, with no statement to plan and
 * no JSON to parse, and a table's statement triggers see the whole batch as one transition table.
 * The text is built a few rows at a time, handing the event loop back between pieces.
 */

/** How one column's value is written in COPY's text format (NULL as `\N`). */
export type CopyType = 'text' | 'jsonb' | 'timestamp' | 'number' | 'boolean' | 'text[]';

export interface CopyColumn {
  name: string;
  type: CopyType;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const SPECIAL = /[\\\t\n\r]/g;
const escapeText = (s: string) => s.replace(SPECIAL, (c) => ESCAPES[c] ?? c);

/** A text[] as an array literal, each element quoted. */
const arrayLiteral = (values: readonly unknown[]) =>
  `{${values.map((v) => `"${String(v).replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;

function field(value: unknown, type: CopyType): string {
  if (value === null || value === undefined) return '\\N';
  switch (type) {
    case 'jsonb':
      return escapeText(JSON.stringify(value));
    case 'timestamp':
      return value instanceof Date ? value.toISOString() : escapeText(String(value));
    case 'boolean':
      return value ? 't' : 'f';
    case 'text[]':
      // A column declared text[] holds an array.
      return escapeText(arrayLiteral(value as readonly unknown[]));
    default:
      return escapeText(String(value));
  }
}

/** Rows per piece of text: about a millisecond of work for a load with its stops. */
const ROWS_PER_PIECE = 50;

async function* copyText(rows: readonly object[], columns: readonly CopyColumn[]) {
  const turns = cooperative();
  for (let at = 0; at < rows.length; at += ROWS_PER_PIECE) {
    await turns.pause();
    let piece = '';
    for (const row of rows.slice(at, at + ROWS_PER_PIECE)) {
      // Rows are read column by column, by name.
      const values = row as Record<string, unknown>;
      piece += `${columns.map((c) => field(values[c.name], c.type)).join('\t')}\n`;
    }
    yield piece;
  }
}

/** The pg client a drizzle transaction runs on (drizzle keeps it on the transaction's session). */
function clientOf(tx: Tx): pg.PoolClient {
  // drizzle's node-postgres transaction holds its session, and the session its client; neither is
  // in drizzle's public types.
  const client = (tx as unknown as { session?: { client?: pg.PoolClient } }).session?.client;
  if (typeof client?.query !== 'function') throw new Error('copyRows: no connection on the transaction');
  return client;
}

/** Writes `rows` into `table` with COPY, inside the caller's transaction. */
export async function copyRows(
  tx: Tx,
  table: string,
  columns: readonly CopyColumn[],
  rows: readonly object[],
): Promise<void> {
  if (rows.length === 0) return;
  const list = columns.map((c) => `"${c.name}"`).join(', ');
  const stream = clientOf(tx).query(copyFrom(`COPY "${table}" (${list}) FROM STDIN`));
  await pipeline(Readable.from(copyText(rows, columns)), stream);
}
