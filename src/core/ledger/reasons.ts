import type { ConcurrencyPolicy, OverlapDecision, OverlapState } from '../policy/overlap.js';
import { clock } from '../schedule/explain.js';
import type { DstPolicy, Occurrence } from '../schedule/occurrences.js';
import { findOffsetChange, offsetAt } from '../schedule/timezone.js';
import type { OccurrenceOutcome } from './entry.js';

const DAY_MS = 86_400_000;

/**
 * The ledger record for an occurrence that `nextOccurrence` or `occurrencesBetween` passed over: a wall time the
 * clocks skipped under `--dst-gap skip` (`dst-skipped`), or the occurrence of a repeated wall time that
 * `--dst-repeat` does not run (`deduplicated`). Null for an occurrence that fires.
 */
export function passedOccurrenceRecord(
  o: Occurrence,
  dst: DstPolicy,
  timezone: string,
): { outcome: Extract<OccurrenceOutcome, 'dst-skipped' | 'deduplicated'>; reason: string } | null {
  const note = o.note;
  if (note?.kind === 'skipped') {
    const jumpFrom = wallClock(o.at + offsetAt(timezone, o.at - 1));
    const jumpTo = wallClock(o.at + offsetAt(timezone, o.at));
    return {
      outcome: 'dst-skipped',
      reason: `that wall time does not exist (the clocks jumped from ${jumpFrom} to ${jumpTo}) and the job is set to --dst-gap skip`,
    };
  }
  if (note?.kind !== 'repeated') return null;
  const fires = note.occurrence === 'first' ? dst.repeat !== 'last' : dst.repeat !== 'first';
  if (fires) return null;
  const change =
    note.occurrence === 'first'
      ? findOffsetChange(timezone, o.at, o.at + DAY_MS)
      : findOffsetChange(timezone, o.at - DAY_MS, o.at);
  const back =
    change === null
      ? ''
      : ` (the clocks went back from ${wallClock(change + offsetAt(timezone, change - 1))} to ${wallClock(change + offsetAt(timezone, change))})`;
  const reason =
    note.occurrence === 'second'
      ? `it was the second ${clock(o.wall)}${back} and the job is set to --dst-repeat first, so only the first ran`
      : `it was the first of two ${clock(o.wall)}s${back} and the job is set to --dst-repeat last, so only the second runs`;
  return { outcome: 'deduplicated', reason };
}

/** The ledger reason for an instant that `decideOverlap` skipped; null for decisions that run the instant. */
export function overlapReason(
  policy: ConcurrencyPolicy,
  decision: OverlapDecision,
  state: OverlapState,
): string | null {
  if (decision.action !== 'skip') return null;
  const running = runList(state.runningRunIds, state.nodeOf ?? {});
  if (decision.reason === 'queue-full') {
    const waiting = state.queuedRunId === null ? 'another run' : `run ${state.queuedRunId}`;
    const busy = running === null ? '' : `${running.text} ${running.verb} still running and `;
    return `${busy}${waiting} was already waiting (--concurrency ${policy} keeps at most one waiting)`;
  }
  return `${running?.text ?? 'an earlier run'} ${running?.verb ?? 'was'} still running (--concurrency ${policy})`;
}

// A run on another node is named with its node: that is where to look for it.
function runList(
  ids: readonly string[],
  nodeOf: Readonly<Record<string, string>>,
): { text: string; verb: 'was' | 'were' } | null {
  const named = ids.map((id) => (nodeOf[id] === undefined ? id : `${id} on node ${nodeOf[id]}`));
  if (named.length === 0) return null;
  if (named.length === 1) return { text: `run ${named[0]}`, verb: 'was' };
  return { text: `runs ${named.slice(0, -1).join(', ')} and ${named.at(-1)}`, verb: 'were' };
}

function wallClock(wall: number): string {
  return clock(new Date(wall).toISOString().slice(0, 19));
}
