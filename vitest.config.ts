import { defineConfig, type TestUserConfig } from 'vitest/config';

/**
 * Test files that read module state of their own: the process-wide table of prepared statement
 * names (src/db/prepared.ts, bounded at 100 texts, which prepared-statements fills on purpose and
 * load-counts expects room in), and the event-loop benchmark (it sets BENCH_* variables in
 * process.env). Each runs in a fresh worker.
 */
const OWN_MODULES = [
  'test/foundation/prepared-statements.test.ts',
  'test/loads/load-counts.test.ts',
  'test/foundation/event-loop-bench.test.ts',
];

const shared: TestUserConfig = {
  pool: 'forks',
  setupFiles: ['./test/helpers/file-setup.ts'],
  testTimeout: 20_000,
  hookTimeout: 60_000,
  teardownTimeout: 30_000,
};

export default defineConfig({
  test: {
    // Once for the run (one migrated template database); the projects below do not repeat it.
    globalSetup: ['./test/helpers/global-setup.ts'],
    projects: [
      {
        test: {
          ...shared,
          name: 'shared-modules',
          include: ['test/**/*.test.ts'],
          exclude: OWN_MODULES,
          // A worker loads the application's modules once and runs file after file on them: no
          // test file relies on module state of its own (each builds its app, with its own
          // services and caches, on its own database).
          isolate: false,
        },
      },
      {
        test: { ...shared, name: 'own-modules', include: OWN_MODULES, isolate: true },
      },
    ],
  },
});
