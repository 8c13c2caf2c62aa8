#!/usr/bin/env node
// Checks every relative link of README.md and docs/**/*.md: the file exists and, for `#anchor`,
// a heading of that file gives that anchor (GitHub's rule). Exits 1 listing the broken ones.
//   node scripts/check-doc-links.mjs (npm run docs:check)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pages = ['README.md'];
const walk = (dir) => {
  for (const entry of readdirSync(path.join(root, dir))) {
    const rel = path.join(dir, entry);
    if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
    else if (entry.endsWith('.md')) pages.push(rel);
  }
};
walk('docs');

const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file) {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map();
  const anchors = new Set();
  for (const m of text.matchAll(/^#{1,6} (.*)$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

const broken = [];
for (const page of pages) {
  const text = readFileSync(path.join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^[a-z]+:/i.test(target)) continue;
    const [file, anchor] = target.split('#');
    const resolved = file ? path.resolve(path.dirname(path.join(root, page)), file) : path.join(root, page);
    if (!existsSync(resolved)) broken.push(`${page}: ${target} (no such file)`);
    else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
      broken.push(`${page}: ${target} (no such heading)`);
  }
}
if (broken.length) {
  console.error(`${broken.length} broken links:\n${broken.join('\n')}`);
  process.exit(1);
}
console.log(`links: ${pages.length} pages, every relative link resolves`);
