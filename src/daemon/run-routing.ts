import type { Cluster } from '../cluster/cluster.js';
import { SchedError } from '../core/errors.js';
import type { Job } from '../core/job.js';
import type { Run, RunSummary } from '../core/run.js';
import type { RunGate } from './run-gate.js';

/**
 * Where a run asked for by hand (trigger, retry, backfill, a dependency) executes: where the job's
 * placement says, whichever node was asked. A run for this node is handed to the run gate; one for
 * another node is stored waiting with that node's id, and the store announces it to that node.
 */
export class RunRouting {
  constructor(
    private readonly cluster: Cluster,
    private readonly gate: RunGate,
  ) {}

  /** The node a run of the job executes on: this one when its placement allows, else the one it names. */
  nodeFor(job: Job): string {
    const runners = this.runnersOf(job);
    return runners.includes(this.cluster.nodeId) ? this.cluster.nodeId : runners[0]!;
  }

  /** The nodes a trigger runs the job on: every matching node for an `every-host` job, else nodeFor. */
  triggerNodes(job: Job): string[] {
    if (job.placement.mode !== 'every-host') return [this.nodeFor(job)];
    const runners = this.runnersOf(job);
    // This node's own run first: it is the one the trigger answers with.
    return [...runners].sort((a, b) => Number(b === this.cluster.nodeId) - Number(a === this.cluster.nodeId));
  }

  /** The node a new attempt of `failed` runs on: an `every-host` run's own node, else nodeFor. */
  retryNode(failed: Pick<RunSummary, 'node' | 'host'>, job: Job): string {
    if (job.placement.mode === 'every-host' && this.cluster.shared) return failed.host || failed.node;
    return this.nodeFor(job);
  }

  /**
   * The node an automatic retry (after a failure, or of a run recorded lost) runs on: where the job's
   * placement says now, so a lost run of an `--on` job is retried on a matching node. An `every-host`
   * retry stays with the node that makes it. When no live node may run it now, it keeps the node of the
   * attempt it follows: that node starts it when it is back, or the job's owner once that node has left
   * the map for good (see Cluster.startsWaitingRun); it is never lost.
   */
  automaticRetryNode(job: Job, failedOn: string): string {
    const self = this.cluster.nodeId;
    if (job.placement.mode === 'every-host') return self;
    const runners = this.cluster.runnersOf(job);
    if (runners.length === 0) return failedOn;
    return runners.includes(self) ? self : runners[0]!;
  }

  /** The `host` part of a run's key: each node's run of an `every-host` job's instant is its own. */
  hostOf(job: Job, node: string): string {
    return job.placement.mode === 'every-host' && this.cluster.shared ? node : '';
  }

  isHere(node: string): boolean {
    return node === this.cluster.nodeId;
  }

  /** Hands a stored run to this node's gate when it runs here; another node's run waits for that node. */
  dispatch(run: Run, job: Job): void {
    if (this.isHere(run.node)) this.gate.hold(run, job);
  }

  private runnersOf(job: Job): string[] {
    const runners = this.cluster.runnersOf(job);
    if (runners.length > 0) return runners;
    const labels = Object.entries(job.placement.on).map(([key, value]) => `${key}=${value}`);
    if (labels.length === 0) {
      throw new SchedError('NO_MATCHING_NODE', `No live node of the cluster can run ${job.name} now.`, {
        hint: 'The cluster has no shard map yet (a node just started?): try again in a few seconds, and check `sched cluster status`.',
        details: { job: job.name },
      });
    }
    throw new SchedError(
      'NO_MATCHING_NODE',
      `No live node can run ${job.name}: it runs only on nodes labelled ${labels.join(', ')} (--on), and none is in the cluster now.`,
      {
        hint: `Start a daemon with ${labels.map((label) => `--label ${label}`).join(' ')}, or let the job run on any node with \`sched update ${job.name} --clear-on\`. \`sched cluster status\` lists the nodes and their labels.`,
        details: { job: job.name, on: job.placement.on },
      },
    );
  }
}
