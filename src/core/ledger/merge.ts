import { isFinalRunState, type RunSummary, type RunTrigger } from '../run.js';
import type { LedgerEntry } from './entry.js';

const TRIGGER_REASONS: Readonly<Record<RunTrigger, string>> = {
  schedule: '',
  manual: 'someone ran it by hand (sched trigger)',
  retry: '',
  catchup: 'it was caught up after it fell due while it could not run',
  backfill: 'sched backfill asked for it',
  dependency: 'a job it runs after ended its run (--after)',
  ping: 'something outside checked in with sched ping',
};

/**
 * The ledger as people read it: the recorded decisions (`records`, instants that did not simply run, or ran
 * with a reason worth telling) together with the instants that ran, taken from their runs. A recorded `ran`
 * entry and the runs of its instant become one entry. Ordered by instant, newest first unless `order` is asc.
 */
export function mergeLedger(
  records: readonly LedgerEntry[],
  runs: readonly RunSummary[],
  order: 'asc' | 'desc' = 'desc',
): LedgerEntry[] {
  const byInstant = new Map<number, RunSummary[]>();
  for (const run of runs) {
    const group = byInstant.get(run.scheduledFor) ?? [];
    group.push(run);
    byInstant.set(run.scheduledFor, group);
  }
  const entries: LedgerEntry[] = [];
  const claimed = new Set<number>();
  for (const record of records) {
    const group = record.outcome === 'ran' ? byInstant.get(record.scheduledFor) : undefined;
    if (group === undefined) {
      entries.push(record);
      continue;
    }
    claimed.add(record.scheduledFor);
    entries.push({
      ...ranEntry(group, record.jobName),
      reason: record.reason,
      node: record.node,
      wall: record.wall,
    });
  }
  for (const [instant, group] of byInstant) {
    if (!claimed.has(instant)) entries.push(ranEntry(group, group[0]?.jobName ?? ''));
  }
  const sign = order === 'asc' ? 1 : -1;
  return entries.sort((a, b) => sign * (a.scheduledFor - b.scheduledFor) || outcomeRank(a) - outcomeRank(b));
}

function ranEntry(group: readonly RunSummary[], jobName: string): LedgerEntry {
  const attempts = [...group].sort((a, b) => a.attempt - b.attempt);
  const first = attempts[0]!;
  const last = attempts.at(-1)!;
  return {
    jobId: first.jobId,
    jobName: jobName || first.jobName,
    scheduledFor: first.scheduledFor,
    outcome: 'ran',
    reason: TRIGGER_REASONS[first.trigger],
    node: first.node,
    decidedAt: first.createdAt,
    runIds: attempts.map((run) => run.id),
    finalState: isFinalRunState(last.state) ? last.state : null,
    waiting: last.state === 'scheduled',
  };
}

/** At one instant a run beats a record of something passed over (a skipped wall time and a real one at the jump). */
function outcomeRank(entry: LedgerEntry): number {
  return entry.outcome === 'ran' ? 1 : 0;
}
