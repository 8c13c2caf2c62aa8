#!/usr/bin/env node
// Counts type assertions in the TypeScript sources, read with the TypeScript parser (not grep, so
// strings, comments and `as` in imports do not count): `x!` non-null assertions, and `x as T` /
// `<T>x` casts other than `as const`. A cast counts as "with a reason" when a `//` comment sits on
// its line or on the line just above. Prints one row per directory and a total.
//
//   node scripts/casts-count.mjs [--list] [--unexplained] [dir or file ...]   (default dirs: src bench test)
//   --list         also print every assertion as file:line kind
//   --unexplained  with --list, print only casts without a reason and the non-null assertions
//   --check        exit 1 when any cast has no reason or any non-null assertion is left (the lint runs this)

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const list = args.includes('--list');
const unexplainedOnly = args.includes('--unexplained');
const check = args.includes('--check');
const roots = args.filter((a) => !a.startsWith('--'));
if (roots.length === 0) roots.push('src', 'bench', 'test');

/** Every .ts file under `dir` (or `dir` itself when it is a file), in a stable order. */
function sourceFiles(dir) {
  if (statSync(dir).isFile()) return [dir];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...sourceFiles(full));
    } else if (entry.isFile() && /\.(c|m)?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

const isAsConst = (node) =>
  ts.isConstTypeReference?.(node.type) ??
  (ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const');

/** Counts of one file, and its findings as `file:line kind`. */
function countFile(file) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const counts = { nonNull: 0, casts: 0, explained: 0 };
  const findings = [];
  const hasReason = (line) => /\/\/|\/\*/.test(lines[line] ?? '') || /^\s*\/\//.test(lines[line - 1] ?? '');
  const visit = (node) => {
    const line = () => source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    if (ts.isNonNullExpression(node)) {
      counts.nonNull += 1;
      findings.push({
        where: `${file}:${line() + 1}`,
        kind: `non-null ${node.expression.getText(source).slice(0, 60)}`,
        explained: false,
      });
    } else if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isAsConst(node)) {
      counts.casts += 1;
      // The reason may sit above the statement the cast is in, so look above its first line too.
      let statement = node;
      while (statement.parent && !ts.isStatement(statement) && !ts.isClassElement(statement)) {
        statement = statement.parent;
      }
      const statementLine = source.getLineAndCharacterOfPosition(statement.getStart(source)).line;
      const explained = hasReason(line()) || hasReason(statementLine);
      if (explained) counts.explained += 1;
      findings.push({ where: `${file}:${line() + 1}`, kind: `cast ${node.type.getText(source)}`, explained });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { counts, findings };
}

const total = { nonNull: 0, casts: 0, explained: 0 };
const rows = [];
for (const root of roots) {
  const sum = { nonNull: 0, casts: 0, explained: 0 };
  for (const file of sourceFiles(root)) {
    const { counts, findings } = countFile(file);
    for (const key of Object.keys(sum)) sum[key] += counts[key];
    if (list) {
      for (const f of findings) {
        if (!unexplainedOnly || !f.explained)
          console.log(`${f.where} ${f.kind}${f.explained ? ' (reason)' : ''}`);
      }
    }
  }
  for (const key of Object.keys(total)) total[key] += sum[key];
  rows.push([root, sum]);
}
rows.push(['total', total]);
console.log('dir\tnon-null\tcasts\tcasts with a reason\tcasts without');
for (const [name, c] of rows) {
  console.log(`${name}\t${c.nonNull}\t${c.casts}\t${c.explained}\t${c.casts - c.explained}`);
}
if (check && (total.nonNull > 0 || total.casts > total.explained)) {
  console.error(
    'casts:count --check: every cast needs a `//` reason on its line or just above, and no `!` may stay ' +
      '(list them with --list --unexplained)',
  );
  process.exit(1);
}
