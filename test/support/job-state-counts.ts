import Database from 'better-sqlite3';
import { JOB_STATES, type JobState } from '../../src/core/job.js';
import type { Store } from '../../src/store/store.js';

export type JobStateCounts = Record<JobState, number>;

/** What countJobs answers for every state. */
export async function countsOf(store: Store): Promise<JobStateCounts> {
  const entries = await Promise.all(JOB_STATES.map(async (state) => [state, await store.countJobs(state)]));
  return Object.fromEntries(entries) as JobStateCounts;
}

/** count(*) of each state's rows, read from the SQLite file by a connection of its own. */
export function countedRows(file: string): JobStateCounts {
  const reader = new Database(file, { readonly: true });
  try {
    const count = reader.prepare('SELECT count(*) FROM jobs WHERE state = ?').pluck();
    return Object.fromEntries(
      JOB_STATES.map((state) => [state, count.get(state) as number]),
    ) as JobStateCounts;
  } finally {
    reader.close();
  }
}
