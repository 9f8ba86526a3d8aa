import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Where the files' measured durations are kept; `RECORD_TEST_DURATIONS=1 npm test` writes it anew. */
export const DURATIONS_FILE = path.join(import.meta.dirname, 'file-durations.json');
/** What a file not yet measured is assumed to take: short, so a new file never holds up the long ones. */
const UNMEASURED_MS = 1_000;

/**
 * Starts the longest files first. With a few workers, the run ends when its last file does: a clean
 * clone has no cache of durations, so vitest's own order could start a two-minute file last and leave
 * the other workers idle while it runs. The durations are measured and kept in the repository.
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const root = this.ctx.config.root;
    const durationOf = (file: TestSpecification) =>
      durations[path.relative(root, file.moduleId).split(path.sep).join('/')] ?? UNMEASURED_MS;
    return [...files].sort((a, b) => durationOf(b) - durationOf(a));
  }
}

function readDurations(): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}
