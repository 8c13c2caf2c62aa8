#!/usr/bin/env node
// Lists the source files under src/ longer than MAX_LINES lines. Such a file must say why in its
// header comment (the comments before its first line of code), in a line containing "Size:", e.g.
//   // Size: one table definition; splitting it would scatter a single schema.
// Exits 1 when a long file gives no such reason. Plain node, no dependencies.
//
//   node scripts/file-sizes.mjs [--max=400] [dir ...]   (default dir: src)

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);

const args = process.argv.slice(2);
const maxArg = args.find((a) => a.startsWith('--max='));
const MAX_LINES = maxArg ? Number(maxArg.slice('--max='.length)) : 400;
if (!Number.isInteger(MAX_LINES) || MAX_LINES <= 0) {
  console.error(`file-sizes: --max must be a positive integer, got ${maxArg}`);
  process.exit(2);
}
const roots = args.filter((a) => !a.startsWith('--'));
if (roots.length === 0) roots.push('src');

/** Every source file under `dir`, in a stable order. */
function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.isFile() && EXTENSIONS.has(path.extname(entry.name))) out.push(full);
  }
  return out;
}

const lineCount = (text) => {
  const lines = text.split('\n');
  return text.endsWith('\n') ? lines.length - 1 : lines.length;
};

/** The comments at the top of a file, before its first line of code (a shebang is skipped). */
function headerComment(text) {
  let rest = text.replace(/^#![^\n]*\n/, '');
  const parts = [];
  for (;;) {
    rest = rest.replace(/^\s+/, '');
    if (rest.startsWith('//')) {
      const end = rest.indexOf('\n');
      parts.push(end === -1 ? rest : rest.slice(0, end));
      rest = end === -1 ? '' : rest.slice(end + 1);
    } else if (rest.startsWith('/*')) {
      const end = rest.indexOf('*/');
      if (end === -1) return parts.concat(rest).join('\n');
      parts.push(rest.slice(0, end + 2));
      rest = rest.slice(end + 2);
    } else {
      return parts.join('\n');
    }
  }
}

const long = [];
for (const root of roots) {
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const lines = lineCount(text);
    if (lines <= MAX_LINES) continue;
    const reason = headerComment(text)
      .split('\n')
      .find((l) => l.includes('Size:'));
    long.push({ file, lines, reason: reason?.replace(/^\s*(\/\/|\/?\*+)\s?/, '').trim() });
  }
}

long.sort((a, b) => b.lines - a.lines);
const unexplained = long.filter((f) => !f.reason);
for (const f of long) {
  console.log(
    `${String(f.lines).padStart(5)}  ${f.file}${f.reason ? `  (${f.reason})` : '  NO "Size:" REASON'}`,
  );
}
if (long.length === 0) console.log(`No file over ${MAX_LINES} lines under ${roots.join(', ')}.`);
if (unexplained.length > 0) {
  console.error(
    `\n${unexplained.length} file(s) over ${MAX_LINES} lines without a "Size:" line in their header comment: ` +
      'split them, or say why they stay whole.',
  );
  process.exit(1);
}
