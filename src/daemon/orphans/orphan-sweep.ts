import { sleep, systemClock, type Clock } from '../clock.js';
import { signalProcessGroup } from '../executor/process-group.js';
import type { ChildJournal } from './child-journal.js';
import { describeTarget, isTargetAlive, planOrphanStops, type OrphanTarget } from './orphan-match.js';
import type { ProcStat } from './proc-stat.js';
import { canReadProcesses, readProcessTable, readProcStat } from './process-table.js';

/** What was stopped, by run id ("process group 1234 (sh)"); or why nothing could be looked for. */
export type OrphanSweep =
  { checked: true; stopped: Map<string, string[]> } | { checked: false; reason: string };

/** After SIGKILL, how long to wait for the kernel to finish the processes off. */
const KILL_WAIT_MS = 2_000;
const POLL_MS = 50;

/**
 * Stops what a dead daemon's runs left running, so their retries cannot run beside them: SIGTERM, then
 * SIGKILL after `graceMs`. Call it before this daemon's executor starts: every journal entry is then a
 * dead daemon's, and the journal is cleared.
 */
export async function stopOrphanedRuns(options: {
  journal: ChildJournal;
  /** The runs a dead daemon left `running` in the store; their processes are found by their environment. */
  leftoverRunIds: readonly string[];
  graceMs: number;
  /** Default the system's: the processes waited on live in real time. */
  clock?: Clock;
}): Promise<OrphanSweep> {
  const { journal } = options;
  const clock = options.clock ?? systemClock;
  if (!canReadProcesses()) {
    journal.clear();
    return {
      checked: false,
      reason: 'there is no /proc to find the processes of runs left by a killed daemon',
    };
  }
  const journaled = journal.read();
  const runIds = new Set([...options.leftoverRunIds, ...journaled.map((child) => child.runId)]);
  const targets = runIds.size === 0 ? [] : planOrphanStops(journaled, readProcessTable(runIds), process.pid);
  if (targets.length > 0) {
    signalAll(targets, 'SIGTERM');
    const left = await waitUntilGone(clock, targets, options.graceMs);
    if (left.length > 0) {
      signalAll(left, 'SIGKILL');
      await waitUntilGone(clock, left, KILL_WAIT_MS);
    }
  }
  journal.clear();
  const stopped = new Map<string, string[]>();
  for (const target of targets)
    stopped.set(target.runId, [...(stopped.get(target.runId) ?? []), describeTarget(target)]);
  return { checked: true, stopped };
}

function signalAll(targets: readonly OrphanTarget[], signal: NodeJS.Signals): void {
  for (const target of targets) {
    if (target.kind === 'group') signalProcessGroup(target.id, signal);
    else signalProcess(target.id, signal);
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone between the look and the signal.
  }
}

/** The targets still alive after at most `timeoutMs`. */
async function waitUntilGone(
  clock: Clock,
  targets: readonly OrphanTarget[],
  timeoutMs: number,
): Promise<OrphanTarget[]> {
  const deadline = clock.monotonic() + timeoutMs;
  for (;;) {
    const pids = new Set(targets.flatMap((target) => target.members.map((member) => member.pid)));
    const table = [...pids].map(readProcStat).filter((stat): stat is ProcStat => stat !== null);
    const alive = targets.filter((target) => isTargetAlive(target, table));
    if (alive.length === 0 || clock.monotonic() >= deadline) return alive;
    await sleep(clock, POLL_MS);
  }
}
