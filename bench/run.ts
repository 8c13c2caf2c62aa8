// `npm run bench -- <name>` runs bench/<name>.ts; with no name it lists them.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <${available.join('|')}>`);
  process.exit(name ? 1 : 0);
}
const started = Date.now();
const mod = (await import(`./${name}.ts`)) as { run: () => Promise<void> };
await mod.run();
console.log(`\n${name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(0);
