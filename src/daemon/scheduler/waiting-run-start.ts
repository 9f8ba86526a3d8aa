import type { Cluster } from '../../cluster/cluster.js';
import type { Run } from '../../core/run.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { RunGate } from '../run-gate.js';
import type { RunLauncher } from '../run-launcher.js';

export interface WaitingRunStartParts {
  store: Store;
  clock: Clock;
  cluster: Cluster;
  launcher: RunLauncher;
  gate: RunGate;
}

/**
 * What happens when a waiting run's time comes: it starts, on the node the cluster gives it, when its
 * job's policy and the concurrency limit allow; a run of a cancelled job is recorded cancelled instead.
 */
export function startWaitingRun(parts: WaitingRunStartParts): (run: Run) => Promise<void> {
  const { store, clock, cluster, launcher, gate } = parts;
  return async (run) => {
    const job = await store.findJob(run.jobId);
    if (job === null || !cluster.startsWaitingRun(run, job)) return;
    if (job.state === 'cancelled') {
      // Claimed first, so a run that something else started meanwhile is left alone.
      if (await store.claimRun(run.id, clock.now()))
        await launcher.recordCancelled(run.id, job, 'the job was cancelled before this run could start');
      return;
    }
    gate.hold(run, job);
  };
}
