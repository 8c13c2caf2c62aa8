#!/usr/bin/env node
// Builds the broker's console (console/) into a folder the server serves (default dist/console):
// one bundle of the app and one stylesheet, named by content hash under assets/, each beside its
// brotli and gzip copies, and index.html naming them. No inline script or style anywhere, so the
// page runs under the console's strict Content-Security-Policy. Prints the initial download's
// compressed size.
//
//   node scripts/build-console.mjs [--out=DIR] [--quiet]
// Also used as a module by the tests and the benchmark: buildConsole({ outDir }).

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds the console into `outDir`; returns the assets and the page's compressed sizes in bytes. */
export async function buildConsole({ outDir = path.join(root, 'dist/console') } = {}) {
  const assetsDir = path.join(outDir, 'assets');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(assetsDir, { recursive: true });
  const result = await build({
    entryPoints: { main: path.join(root, 'console/main.tsx') },
    bundle: true,
    format: 'esm',
    splitting: false,
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
  const outputs = Object.keys(result.metafile.outputs).map((f) => path.resolve(root, f));
  const script = outputs.find((f) => f.endsWith('.js'));
  const style = outputs.find((f) => f.endsWith('.css'));
  if (!script || !style) throw new Error('build-console: the bundle or the stylesheet is missing');
  const name = (f) => `/assets/${path.basename(f)}`;
  const page = readFileSync(path.join(root, 'console/index.html'), 'utf8')
    .replace('%STYLE%', name(style))
    .replace('%SCRIPT%', name(script));
  writeFileSync(path.join(outDir, 'index.html'), page);

  const sizes = { page: { raw: Buffer.byteLength(page), brotli: 0, gzip: 0 }, files: {} };
  for (const file of [script, style]) {
    const body = readFileSync(file);
    const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    const gz = gzipSync(body, { level: 9 });
    writeFileSync(`${file}.br`, br);
    writeFileSync(`${file}.gz`, gz);
    sizes.files[path.basename(file)] = { raw: body.length, brotli: br.length, gzip: gz.length };
  }
  sizes.page.brotli = brotliCompressSync(page).length;
  sizes.page.gzip = gzipSync(page).length;
  const total = (kind) => sizes.page[kind] + Object.values(sizes.files).reduce((s, f) => s + f[kind], 0);
  return { outDir, sizes, initial: { raw: total('raw'), brotli: total('brotli'), gzip: total('gzip') } };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv.find((a) => a.startsWith('--out='))?.slice('--out='.length);
  const built = await buildConsole(out ? { outDir: path.resolve(out) } : {});
  if (!process.argv.includes('--quiet')) {
    console.log(
      `console: built into ${path.relative(root, built.outDir) || '.'}; initial download ${kib(built.initial.raw)}, ` +
        `${kib(built.initial.gzip)} gzip, ${kib(built.initial.brotli)} brotli`,
    );
  }
}
