import { overlapReason } from '../ledger/reasons.js';
import type { RunTrigger } from '../run.js';
import { decideOverlap, type ConcurrencyPolicy, type OverlapState } from './overlap.js';

/** A run of the job that has not ended, as the store holds it when an instant of the job fires. */
export interface RunInFlight {
  id: string;
  node: string;
  state: 'scheduled' | 'running';
  trigger: RunTrigger;
}

/** What the overlap rule makes of the instant that came due, decided where its run is written. */
export type FireOverlap =
  /** Its run is written, `scheduled` to wait for the running one (`queue`) or as the fire asked. */
  | { action: 'run'; state: 'scheduled' | 'running'; replaced: Pick<RunInFlight, 'id' | 'node'>[] }
  /** No run: the instant is recorded `skipped-overlap` for this reason. */
  | { action: 'skip'; reason: string };

/**
 * The overlap state that the job's runs in flight make, seen from node `here`: the running runs (those
 * on other nodes named with their node) and the instant already queued behind them.
 */
export function overlapStateOf(inFlight: readonly RunInFlight[], here: string): OverlapState {
  const running = inFlight.filter((run) => run.state === 'running');
  const queued = inFlight.find((run) => run.state === 'scheduled' && run.trigger === 'schedule');
  return {
    runningRunIds: running.map((run) => run.id),
    queuedRunId: queued?.id ?? null,
    nodeOf: Object.fromEntries(running.filter((run) => run.node !== here).map((run) => [run.id, run.node])),
  };
}

/**
 * Applies the job's `--concurrency` to an instant that came due on node `here`, against the job's runs in
 * flight anywhere: `forbid` skips it while one runs, `queue` makes it wait (or skips it when one waits
 * already), `replace` names the runs it ends; otherwise its run keeps the state the fire asked for.
 */
export function decideFireOverlap(
  policy: ConcurrencyPolicy,
  asked: 'scheduled' | 'running',
  inFlight: readonly RunInFlight[],
  here: string,
): FireOverlap {
  const state = overlapStateOf(inFlight, here);
  const decision = decideOverlap(policy, state);
  switch (decision.action) {
    case 'skip':
      return {
        action: 'skip',
        reason: overlapReason(policy, decision, state) ?? 'an earlier run was still running',
      };
    case 'queue':
      return { action: 'run', state: 'scheduled', replaced: [] };
    case 'replace': {
      const replaced = inFlight.filter((run) => decision.cancel.includes(run.id));
      return { action: 'run', state: asked, replaced: replaced.map(({ id, node }) => ({ id, node })) };
    }
    case 'start':
      return { action: 'run', state: asked, replaced: [] };
  }
}
