import { SchedError } from '../errors.js';

/** What happens when an instant comes due while the job's previous run still runs. */
export type ConcurrencyPolicy = 'allow' | 'forbid' | 'replace' | 'queue';

export const CONCURRENCY_POLICIES: readonly ConcurrencyPolicy[] = ['allow', 'forbid', 'replace', 'queue'];
export const DEFAULT_CONCURRENCY_POLICY: ConcurrencyPolicy = 'forbid';

/** The job's own runs at the moment an instant comes due. */
export interface OverlapState {
  /** Runs of this job that are running now (any instant). */
  runningRunIds: string[];
  /** The run waiting for the running one to end (`queue` only); at most one waits. */
  queuedRunId: string | null;
  /** The node of each running run that runs on another node than the one deciding (a federation). */
  nodeOf?: Readonly<Record<string, string>>;
}

export type OverlapDecision =
  | { action: 'start' }
  | { action: 'skip'; reason: 'overlap' | 'queue-full' }
  | { action: 'replace'; cancel: string[] }
  | { action: 'queue' };

/** Parses `--concurrency allow|forbid|replace|queue`. */
export function parseConcurrency(text: string): ConcurrencyPolicy {
  const value = text.trim().toLowerCase();
  const policy = CONCURRENCY_POLICIES.find((candidate) => candidate === value);
  if (policy !== undefined) return policy;
  throw new SchedError('VALIDATION_FAILED', `Invalid --concurrency "${text}".`, {
    hint:
      'Use forbid (skip an instant while the previous run still runs; the default), allow (run side by side), ' +
      'replace (cancel the running one) or queue (start when it ends, at most one waiting).',
    details: { value: text },
  });
}

/**
 * Decides what a newly due instant does about the job's runs in flight.
 * - allow: always starts.
 * - forbid: skips (reason `overlap`) while a run is running.
 * - replace: cancels every running run, then starts.
 * - queue: waits for the running run to end; when one already waits, the new instant is skipped (`queue-full`)
 *   so instants still run in order and the backlog never grows past one. A waiting run with none running (the
 *   moment between one ending and the next starting) still holds the slot.
 */
export function decideOverlap(policy: ConcurrencyPolicy, state: OverlapState): OverlapDecision {
  const running = state.runningRunIds.length > 0;
  switch (policy) {
    case 'allow':
      return { action: 'start' };
    case 'forbid':
      return running ? { action: 'skip', reason: 'overlap' } : { action: 'start' };
    case 'replace':
      return running ? { action: 'replace', cancel: [...state.runningRunIds] } : { action: 'start' };
    case 'queue':
      if (state.queuedRunId !== null) return { action: 'skip', reason: 'queue-full' };
      return running ? { action: 'queue' } : { action: 'start' };
  }
}

/** Why a run is ended by `--concurrency replace`: the run of `instant` took its place. */
export function replacedReason(instant: number): string {
  return `cancelled: the run of ${new Date(instant).toISOString()} replaced it (--concurrency replace)`;
}

/** Whether the daemon-wide `--max-concurrent` limit lets one more run start; null means no limit. */
export function admitGlobally(active: number, max: number | null): boolean {
  return max === null || active < max;
}

/**
 * Which waiting runs start now under the daemon-wide limit: the earliest due first (ties by id, so every node
 * orders them alike), as many as free slots allow.
 */
export function admitInDueOrder<T extends { id: string; dueAt: number }>(
  waiting: readonly T[],
  active: number,
  max: number | null,
): T[] {
  const ordered = [...waiting].sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (max === null) return ordered;
  return ordered.slice(0, Math.max(0, max - active));
}
