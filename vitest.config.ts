import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One PostgreSQL server per run, started only when a test file asks for it.
    globalSetup: ['./test/support/postgres-server.ts'],
    // The runner's own SCHED_* variables never reach a test (processes a test starts: child-env.ts).
    setupFiles: ['./test/support/runner-env.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
