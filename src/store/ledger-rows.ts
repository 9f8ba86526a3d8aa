import type { Job } from '../core/job.js';
import type { LedgerEntry } from '../core/ledger/entry.js';
import type { RowEncoding } from './sql/records.js';
import type { DependencyEdge, NewOccurrence } from './store.js';

/** An occurrence as both back ends store it. */
// A type, not an interface: better-sqlite3 binds parameters from a plain record.
export type StoredOccurrence = {
  jobId: string;
  scheduledFor: number;
  wall: string;
  outcome: NewOccurrence['outcome'];
  reason: string;
  node: string;
  host: string;
  decidedAt: number;
};

/** The `job_dependencies` rows of a live job: one per `after` link, one per `afterAll` upstream. */
export function dependencyRows(job: Job): { jobId: string; upstreamId: string; on: DependencyEdge['on'] }[] {
  return [
    ...job.after.map((dependency) => ({ jobId: job.id, upstreamId: dependency.job, on: dependency.on })),
    ...job.afterAll.map((upstream) => ({ jobId: job.id, upstreamId: upstream, on: 'all' as const })),
  ];
}

/**
 * No wall time and no host are stored as '': the columns are part of the key, and NULLs never collide in a
 * key. The reason is free text from the daemon.
 */
export function occurrenceToRow(entry: NewOccurrence, encoding: RowEncoding): StoredOccurrence {
  return {
    jobId: entry.jobId,
    scheduledFor: entry.scheduledFor,
    wall: entry.wall ?? '',
    outcome: entry.outcome,
    reason: encoding.text(entry.reason),
    node: entry.node,
    host: entry.host ?? '',
    decidedAt: entry.decidedAt,
  };
}

/** An occurrence row with its job's name; the daemon merges in the instant's runs. */
export function rowToLedgerEntry(row: StoredOccurrence & { jobName: string }): LedgerEntry {
  return {
    jobId: row.jobId,
    jobName: row.jobName,
    scheduledFor: row.scheduledFor,
    outcome: row.outcome,
    reason: row.reason,
    node: row.node,
    decidedAt: row.decidedAt,
    runIds: [],
    finalState: null,
    wall: row.wall === '' ? null : row.wall,
    ...(row.host === '' ? {} : { host: row.host }),
  };
}
