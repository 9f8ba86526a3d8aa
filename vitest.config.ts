import os from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/longest-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files spend their time waiting on daemons, child processes and the schedule, not computing, so
    // twice as many files as cores run at once (vitest's default is one fewer than the cores: a single
    // file at a time on 2 cores). Tests share nothing but the PostgreSQL server, where each file has its
    // own databases. VITEST_MAX_WORKERS overrides it.
    maxWorkers: 2 * os.availableParallelism(),
    // One PostgreSQL server per run, started only when a test file asks for it.
    globalSetup: ['./test/support/postgres-server.ts'],
    // The runner's own SCHED_* variables never reach a test (processes a test starts: child-env.ts).
    setupFiles: ['./test/support/runner-env.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    sequence: { sequencer: LongestFirstSequencer },
  },
});
