// `npm run bench -- <name>` runs bench/<name>.ts; with no name it lists them. `report` renders
// bench/results/*.json into docs/performance.md (`report --check` only compares).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { objectOf } from '../src/lib/json-object.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3));
const name = process.argv[2];
// Imported when needed, not above: lib/harness.js reads BENCH_SMOKE once, when first imported.
const report = async (args: string[]) => (await import('./lib/report.js')).report(args);
if (name === 'report') {
  await report(process.argv.slice(3));
  process.exit(0);
}
// `smoke` runs every benchmark at its smoke size, one after another (CI does, so none can rot).
if (name === 'smoke') process.env.BENCH_SMOKE = '1';
// BENCH_SKIP (comma-separated names) leaves some out of `smoke` (CI runs the failover on its own).
const skipped = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const chosen =
  name === 'smoke'
    ? available.filter((b) => !skipped.has(b))
    : name && available.includes(name)
      ? [name]
      : [];
if (chosen.length === 0) {
  console.error(`usage: npm run bench -- <${[...available, 'smoke', 'report'].join('|')}>`);
  process.exit(name ? 1 : 0);
}
for (const bench of chosen) {
  const started = Date.now();
  const { run } = objectOf(await import(`./${bench}.ts`)) ?? {};
  if (typeof run !== 'function') throw new Error(`bench/${bench}.ts exports no run()`);
  await run();
  console.log(`\n${bench}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
// CI runs `smoke`: the page of figures must be what the recorded results render.
if (name === 'smoke') await report(['--check']);
process.exit(0);
