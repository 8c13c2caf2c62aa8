import { describe, expect, it, vi } from 'vitest';

describe('the event-loop benchmark', () => {
  it('runs at its smoke size and reports the small requests idle and under load', async () => {
    process.env.BENCH_SMOKE = '1';
    process.env.IDLE_MS = '200';
    if (process.env.TEST_DATABASE_URL) process.env.BENCH_DATABASE_URL = process.env.TEST_DATABASE_URL;
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.join(' '));
    });
    try {
      const { run } = await import('../../bench/event-loop.js');
      await run();
    } finally {
      log.mockRestore();
    }
    const out = lines.join('\n');
    // Each row: requests, p50, p99 and max of the small requests, then the loop delay's p99 and max.
    const row = (label: string) =>
      new RegExp(`\\| ${label} \\| \\d+ \\| [\\d.]+ \\| [\\d.]+ \\| [\\d.]+ \\| \\d+ \\| \\d+ \\|`);
    expect(out).toMatch(row('idle'));
    expect(out).toMatch(row('while the large requests arrive'));
  }, 180_000);
});
