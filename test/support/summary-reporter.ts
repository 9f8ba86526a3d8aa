import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { DURATIONS_FILE } from './longest-first-sequencer.js';

/**
 * Ends every run with the plain line CI reads: `N passed, N failed`. With RECORD_TEST_DURATIONS=1 it also
 * keeps each file's duration, which the sequencer reads to start the longest files first.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    if (process.env.RECORD_TEST_DURATIONS === '1') recordDurations(testModules);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      // A file that failed to load has no tests but must still count as a failure.
      if (
        module.state() === 'failed' &&
        ![...module.children.allTests()].some((test) => test.result().state === 'failed')
      )
        failed += 1;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}

function recordDurations(testModules: ReadonlyArray<TestModule>): void {
  const durations: Record<string, number> = {};
  try {
    Object.assign(durations, JSON.parse(fs.readFileSync(DURATIONS_FILE, 'utf8')));
  } catch {
    // None recorded yet.
  }
  for (const module of testModules) {
    const file = path.relative(module.project.config.root, module.moduleId).split(path.sep).join('/');
    durations[file] = Math.round(module.diagnostic().duration);
  }
  const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
}
