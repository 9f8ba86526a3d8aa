import type { Store } from '../store/store.js';
import type { RunLauncher } from './run-launcher.js';

/** Why a run left `running` by this daemon's own crash is recorded lost. */
export const CRASH_LOST_REASON =
  'the daemon stopped while this run was in progress (crash or kill -9); its outcome is unknown';

/** Why a run of a node that left the federation's map is recorded lost. */
export function deadNodeLostReason(nodeId: string): string {
  return `node ${nodeId} stopped heartbeating while this run was in progress; its outcome is unknown`;
}

/**
 * Records the runs a node left `running` as lost, each retried per its job's policy: its own after a crash
 * (their outcome is unknown), or a dead node's. Only that node's: in a federation the others' runs are theirs.
 */
export async function recordLostRunsOf(
  store: Store,
  launcher: RunLauncher,
  nodeId: string,
  reason: string,
): Promise<void> {
  for (const run of await store.listRunningRuns()) {
    if (run.node !== nodeId) continue;
    const job = await store.findJob(run.jobId);
    if (job) await launcher.recordLost(run.id, job, run.attempt, run.scheduledFor, reason, run.host);
  }
}
