#!/usr/bin/env node
// Builds the broker's console (console/) into a folder the server serves (default dist/console):
// the app's entry script and one stylesheet, named by content hash under assets/, and the chunks of
// the screens loaded on first use (the results screen with its charts) under assets/chunks/, each
// beside its brotli and gzip copies, and index.html naming the entry. No inline script or style
// anywhere, so the page runs under the console's strict Content-Security-Policy. Prints the
// initial download's compressed size (the page, the entry, the chunks it imports at once, the
// stylesheet) and what the lazily loaded chunks add.
//
//   node scripts/build-console.mjs [--out=DIR] [--quiet]
// Also used as a module by the tests and the benchmark: buildConsole({ outDir }).

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The roles of each operation, generated from the OpenAPI document with the typed client. */
function requireOperationRoles() {
  if (existsSync(path.join(root, 'console/api/operation-roles.ts'))) return;
  throw new Error(
    'build-console: console/api/operation-roles.ts is missing: run `npm run console:types` (or `npm run build`) first',
  );
}

/** Builds the console into `outDir`; returns the assets and the page's compressed sizes in bytes. */
export async function buildConsole({ outDir = path.join(root, 'dist/console') } = {}) {
  requireOperationRoles();
  const assetsDir = path.join(outDir, 'assets');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(assetsDir, { recursive: true });
  const result = await build({
    entryPoints: { main: path.join(root, 'console/main.tsx') },
    bundle: true,
    format: 'esm',
    // The results screen (and its charting library) is its own chunk, loaded when first opened.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    sourcemap: 'linked',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = result.metafile.outputs;
  const entryKey = Object.keys(outputs).find((f) => outputs[f].entryPoint && f.endsWith('.js'));
  const styleKey = Object.keys(outputs).find((f) => f.endsWith('.css'));
  if (!entryKey || !styleKey) throw new Error('build-console: the bundle or the stylesheet is missing');
  // The initial download: the entry and every chunk it imports statically, transitively.
  const initialKeys = new Set([entryKey, styleKey]);
  for (const key of initialKeys) {
    for (const i of outputs[key].imports ?? []) {
      if (i.kind === 'import-statement' && !i.external) initialKeys.add(i.path);
    }
  }
  const scripts = Object.keys(outputs).filter((f) => f.endsWith('.js'));
  const script = path.resolve(root, entryKey);
  const style = path.resolve(root, styleKey);
  const name = (f) => `/assets/${path.relative(assetsDir, f)}`;
  const page = readFileSync(path.join(root, 'console/index.html'), 'utf8')
    .replace('%STYLE%', name(style))
    .replace('%SCRIPT%', name(script));
  writeFileSync(path.join(outDir, 'index.html'), page);

  const sizes = { page: { raw: Buffer.byteLength(page), brotli: 0, gzip: 0 }, files: {}, lazy: {} };
  for (const key of [...scripts, styleKey]) {
    const file = path.resolve(root, key);
    const body = readFileSync(file);
    const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    const gz = gzipSync(body, { level: 9 });
    writeFileSync(`${file}.br`, br);
    writeFileSync(`${file}.gz`, gz);
    const where = initialKeys.has(key) ? sizes.files : sizes.lazy;
    where[path.relative(assetsDir, file)] = { raw: body.length, brotli: br.length, gzip: gz.length };
  }
  sizes.page.brotli = brotliCompressSync(page).length;
  sizes.page.gzip = gzipSync(page).length;
  const sum = (files, kind) => Object.values(files).reduce((s, f) => s + f[kind], 0);
  const total = (kind) => sizes.page[kind] + sum(sizes.files, kind);
  return {
    outDir,
    sizes,
    initial: { raw: total('raw'), brotli: total('brotli'), gzip: total('gzip') },
    lazy: { raw: sum(sizes.lazy, 'raw'), brotli: sum(sizes.lazy, 'brotli'), gzip: sum(sizes.lazy, 'gzip') },
  };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv.find((a) => a.startsWith('--out='))?.slice('--out='.length);
  const built = await buildConsole(out ? { outDir: path.resolve(out) } : {});
  if (!process.argv.includes('--quiet')) {
    console.log(
      `console: built into ${path.relative(root, built.outDir) || '.'}; initial download ${kib(built.initial.raw)}, ` +
        `${kib(built.initial.gzip)} gzip, ${kib(built.initial.brotli)} brotli; loaded on first use ` +
        `(the results screen and its charts): ${kib(built.lazy.gzip)} gzip, ${kib(built.lazy.brotli)} brotli`,
    );
  }
}
