import type { Cluster } from '../cluster/cluster.js';
import type { RunSummary } from '../core/run.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEvents } from './events.js';
import { DEFAULT_KILL_GRACE_MS } from './executor/command-executor.js';
import type { ChildJournal } from './orphans/child-journal.js';
import { stopOrphanedRuns } from './orphans/orphan-sweep.js';
import type { RunLauncher } from './run-launcher.js';

/** Why a run left `running` by this daemon's own crash is recorded lost. */
const CRASH_LOST_REASON =
  'the daemon stopped while this run was in progress (crash or kill -9); its outcome is unknown';

/** The crash reason, naming what was left of the run and stopped before it was recorded lost. */
export function crashLostReason(stopped: readonly string[] = []): string {
  if (stopped.length === 0) return CRASH_LOST_REASON;
  const verb = stopped.length === 1 ? 'was' : 'were';
  return `${CRASH_LOST_REASON}; its ${stopped.join(' and ')} ${verb} still running and ${verb} stopped before any retry`;
}

/** Why a peer stopped a run when its lease ran out (see member-lease.ts). */
export const LEASE_EXPIRED_REASON =
  'this node lost touch with the majority of the cluster; the run was stopped before the others could record it lost and run it again';

/** Why a peer did not start a run whose fire reached it after its lease ran out. */
export const LEASE_EXPIRED_AT_START_REASON =
  'this node had lost touch with the majority of the cluster when the run was to start; it was not started, since the others may record it lost and run it again';

/** Why a run of a node that left the federation's map is recorded lost. */
export function deadNodeLostReason(nodeId: string): string {
  return `node ${nodeId} stopped heartbeating while this run was in progress; its outcome is unknown`;
}

/** Which of the runs `running` in the store a dead daemon or node left there, and so are to be recovered. */
export type LeftBehind = (run: Pick<RunSummary, 'node'>) => boolean;

/** One node's runs: in a federation the other nodes' runs belong to live nodes. */
export function runsOfNode(nodeId: string): LeftBehind {
  return (run) => run.node === nodeId;
}

/**
 * Every run, whatever node it names: alone on its SQLite database (the database lock sees to that), a
 * starting daemon knows every run still `running` was left by a dead one, even under another hostname.
 */
export const everyRun: LeftBehind = () => true;

/** What a daemon starting in `cluster` recovers: every run when it is alone on its store, else its own. */
export function leftBehindAt(cluster: Pick<Cluster, 'shared' | 'nodeId'>): LeftBehind {
  return cluster.shared ? runsOfNode(cluster.nodeId) : everyRun;
}

/**
 * Stops what the runs `leftBehind` picks (and any child still in this home's journal) left alive, so no retry
 * runs beside them; resolves with what was stopped, by run id. Before the executor starts: see ChildJournal.
 */
export async function stopLeftoversOf(
  store: Store,
  leftBehind: LeftBehind,
  journal: ChildJournal,
  events: DaemonEvents,
  clock: Clock,
): Promise<ReadonlyMap<string, string[]>> {
  const leftoverRunIds = (await store.listRunningRuns()).filter(leftBehind).map((run) => run.id);
  const sweep = await stopOrphanedRuns({ journal, leftoverRunIds, graceMs: DEFAULT_KILL_GRACE_MS, clock });
  if (!sweep.checked) {
    events.emit('orphans:unchecked', { reason: sweep.reason });
    return new Map();
  }
  for (const [runId, processes] of sweep.stopped) events.emit('orphans:stopped', { runId, processes });
  return sweep.stopped;
}

/**
 * Records the runs `leftBehind` picks as lost, each retried per its job's policy: a dead daemon's found at
 * start (their outcome is unknown), or a dead node's.
 */
export async function recordLostRunsOf(
  store: Store,
  launcher: RunLauncher,
  leftBehind: LeftBehind,
  reason: string | ((runId: string) => string),
): Promise<void> {
  for (const run of await store.listRunningRuns()) {
    if (!leftBehind(run)) continue;
    const job = await store.findJob(run.jobId);
    const error = typeof reason === 'string' ? reason : reason(run.id);
    if (job) await launcher.recordLost(run, job, error);
  }
}
