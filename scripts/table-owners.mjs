#!/usr/bin/env node
// Fails when SQL under src/ names a table its folder does not own (docs/decisions/0006-table-owners.md).
// A table belongs to the folder whose *-tables.ts declares it (src/modules/<name>/, or src/http/ for
// idempotency keys); EXTRA_OWNERS lists the tables only SQL creates. The read-side module may read
// (FROM, JOIN) any table but write none. The SQL is found by its upper-case keywords in any string of
// a file, so drizzle's builders (which name tables through imports) are checked by dependency-cruiser.
//
//   node scripts/table-owners.mjs [--list]   (--list prints every table with its owner)

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Tables created by migrations alone, without a drizzle declaration. */
const EXTRA_OWNERS = { envoy_clock: 'db' };
/** Folders that may read every table: their SQL only reads. */
const READ_SIDE = new Set(['read-side']);

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return sourceFiles(full);
      return e.name.endsWith('.ts') ? [full] : [];
    });
}

/** The folder a file counts as: a module's name, or the layer under src/ (db, http, workers, ...). */
function areaOf(file) {
  const parts = file.split(path.sep);
  if (parts[1] === 'modules') return parts[2];
  return parts.length > 2 ? parts[1] : 'src';
}

const files = sourceFiles('src');
const owners = new Map(Object.entries(EXTRA_OWNERS));
for (const file of files.filter((f) => f.endsWith('-tables.ts'))) {
  for (const m of readFileSync(file, 'utf8').matchAll(/pgTable\(\s*'([a-z_]+)'/g))
    owners.set(m[1], areaOf(file));
}

if (process.argv.includes('--list')) {
  for (const [table, owner] of [...owners].sort()) console.log(`${table}\t${owner}`);
  process.exit(0);
}

// A write names its table after UPDATE, INSERT INTO, DELETE FROM, TRUNCATE or LOCK TABLE; a read
// after FROM or JOIN. Lower-case words are prose, not SQL.
const NAMING =
  /\b(DELETE FROM|INSERT INTO|UPDATE|TRUNCATE(?: TABLE)?|LOCK TABLE|FROM|JOIN)\s+(?:ONLY\s+)?"?([a-z_][a-z0-9_]*)\b/g;
const WRITES = new Set(['DELETE FROM', 'INSERT INTO', 'UPDATE', 'TRUNCATE', 'TRUNCATE TABLE', 'LOCK TABLE']);

const problems = [];
for (const file of files.filter((f) => !f.endsWith('-tables.ts'))) {
  const text = readFileSync(file, 'utf8');
  const area = areaOf(file);
  for (const m of text.matchAll(NAMING)) {
    const [, keyword, table] = m;
    const owner = owners.get(table);
    if (!owner || owner === area) continue;
    if (READ_SIDE.has(area) && !WRITES.has(keyword)) continue;
    const line = text.slice(0, m.index).split('\n').length;
    problems.push(`${file}:${line}: ${keyword} ${table}: the table belongs to ${owner}, not ${area}`);
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(
    `\ntable-owners: ${problems.length} SQL site(s) name another folder's table. Read it through the owner's index.ts, or from src/modules/read-side/ when the read joins several owners' tables.`,
  );
  process.exit(1);
}
console.log(
  `table-owners: ${owners.size} tables, every SQL site names only its own folder's (read-side reads any)`,
);
