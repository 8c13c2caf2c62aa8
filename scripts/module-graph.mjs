// The module graph as it is: which module folders under src/modules/ import which (through entry
// files, *-tables.ts foreign keys and type imports alike), and the pairs that import each other.
// Reads dependency-cruiser's JSON on stdin:
//
//   npx depcruise src --config .dependency-cruiser.cjs --output-type json | node scripts/module-graph.mjs
//
// docs/architecture.md ("The module graph as it is") draws this table; `no-module-cycle` in
// .dependency-cruiser.cjs keeps the graph free of cycles.

import { readFileSync } from 'node:fs';

const cruise = JSON.parse(readFileSync(0, 'utf8'));
const moduleOf = (path) => /^src\/modules\/([^/]+)\//.exec(path)?.[1];

const imports = new Map();
for (const file of cruise.modules) {
  const from = moduleOf(file.source);
  if (!from) continue;
  if (!imports.has(from)) imports.set(from, new Set());
  for (const dependency of file.dependencies) {
    const to = moduleOf(dependency.resolved);
    if (to && to !== from) imports.get(from).add(to);
  }
}

console.log('| module | imports |\n| --- | --- |');
for (const name of [...imports.keys()].sort()) {
  console.log(`| \`${name}\` | ${[...imports.get(name)].sort().join(', ') || '(none)'} |`);
}
const pairs = [];
for (const [a, targets] of imports) {
  for (const b of targets) if (a < b && imports.get(b)?.has(a)) pairs.push(`${a} and ${b}`);
}
console.log(
  `\nModule pairs importing each other: ${pairs.length}${pairs.length ? ` (${pairs.sort().join('; ')})` : ''}`,
);
