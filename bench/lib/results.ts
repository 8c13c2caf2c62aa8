// What a benchmark measured at full size, kept in bench/results/<benchmark>.json and rendered into
// docs/performance.md by `npm run bench -- report`: the page holds current figures only, each with
// the command that reproduces it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Measurement } from './harness.js';
import { smoke } from './harness.js';

export const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'results');

/** One headline figure of a benchmark, as a benchmark reports it. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** What the figure should stay within, when the project holds it to something (`≤ 50`). */
  target?: string;
}

const recordedFigure = z.object({
  name: z.string(),
  value: z.number(),
  unit: z.string(),
  target: z.string().optional(),
  command: z.string(),
  measured: z.string(),
  cores: z.number().int(),
});
export type RecordedFigure = z.infer<typeof recordedFigure>;

export const resultsFile = z.object({ benchmark: z.string(), figures: z.array(recordedFigure) });
export type ResultsFile = z.infer<typeof resultsFile>;

/** Environment variables that change what a benchmark measures, so its command must carry them. */
const sizeKnobs = new Set(
  'LOADS UPDATES IN_FLIGHT WRITER_WINDOW ROUNDS RUNS GROUPS BATCH_LOADS CSV_BYTES IDLE_MS MIXED_SECONDS BODY_WORKER_THREADS BODY_WORKER_USE'.split(
    ' ',
  ),
);
const carried = (name: string) =>
  (name.startsWith('BENCH_') && name !== 'BENCH_SMOKE' && name !== 'BENCH_SKIP') || sizeKnobs.has(name);

/** The command that ran this benchmark: the settings it ran with, then `npm run bench`. */
export function commandOf(benchmark: string, env: NodeJS.ProcessEnv = process.env): string {
  const settings = Object.keys(env)
    .filter((k) => carried(k) && env[k] !== undefined && env[k] !== '')
    .sort()
    .map((k) => `${k}=${env[k]}`);
  return [...settings, `npm run bench -- ${benchmark}`].join(' ');
}

export function readResults(benchmark: string): ResultsFile | undefined {
  try {
    return resultsFile.parse(JSON.parse(readFileSync(path.join(resultsDir, `${benchmark}.json`), 'utf8')));
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

export function allResults(): ResultsFile[] {
  return readdirSync(resultsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => resultsFile.parse(JSON.parse(readFileSync(path.join(resultsDir, f), 'utf8'))));
}

export function writeResults(file: ResultsFile) {
  writeFileSync(path.join(resultsDir, `${file.benchmark}.json`), `${JSON.stringify(file, null, 2)}\n`);
}

/**
 * Records a full-size run's headline figures: each replaces the figure of the same name (a run of
 * part of a benchmark keeps the others' earlier figures), and the report is rendered again. At
 * smoke size the figures mean nothing and nothing is written.
 */
export async function recordResults(benchmark: string, figures: Figure[]): Promise<void> {
  // Read again here too: a run at smoke size must never overwrite the figures.
  if (smoke || process.env.BENCH_SMOKE === '1' || figures.length === 0) return;
  const measured = new Date().toISOString().slice(0, 10);
  const command = commandOf(benchmark);
  // A figure that could not be read (CPU where /proc is missing) is left as it was.
  const fresh = figures
    .filter((f) => Number.isFinite(f.value))
    .map((f) => ({
      ...f,
      value: Number(f.value.toFixed(2)),
      command,
      measured,
      cores: os.cpus().length,
    }));
  const earlier = readResults(benchmark)?.figures ?? [];
  const byName = new Map(fresh.map((f) => [f.name, f]));
  const kept = earlier.map((f) => byName.get(f.name) ?? f);
  const added = fresh.filter((f) => !earlier.some((e) => e.name === f.name));
  writeResults({ benchmark, figures: [...kept, ...added] });
  const { writeReport } = await import('./report.js');
  writeReport();
  console.log(
    `\nrecorded ${fresh.length} figures in bench/results/${benchmark}.json and docs/performance.md`,
  );
}

/** The figures of a `measure()` table: each scenario's throughput and latencies. */
export function measuredFigures(rows: Measurement[], prefix = ''): Figure[] {
  return rows.flatMap((r) => [
    { name: `${prefix}${r.name}: throughput`, value: Math.round(r.rps), unit: 'req/s' },
    { name: `${prefix}${r.name}: p50`, value: r.p50, unit: 'ms' },
    { name: `${prefix}${r.name}: p99`, value: r.p99, unit: 'ms' },
  ]);
}
