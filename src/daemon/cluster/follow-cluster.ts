import type { Cluster } from '../../cluster/cluster.js';
import type { Job } from '../../core/job.js';
import type { Store } from '../../store/store.js';
import type { DaemonEvents } from '../events.js';
import { deadNodeLostReason, recordLostRunsOf, runsOfNode } from '../lost-runs.js';
import type { RunLauncher } from '../run-launcher.js';
import type { HostScheduler } from '../scheduler/host-scheduler.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { WaitingRuns } from '../scheduler/waiting-runs.js';
import type { Service } from '../service.js';

export interface ClusterFollowers {
  cluster: Cluster;
  store: Store;
  launcher: RunLauncher;
  scheduler: Scheduler;
  waitingRuns: WaitingRuns;
  hosts: HostScheduler;
  events: DaemonEvents;
  /** This node's local copy of the job definitions it may run (see LocalAutonomy). */
  localCopy?: { jobChanged(job: Job): void; resync(): void };
  /** What this node knows of which jobs others run after (see DependencyTrigger). */
  dependencies?: { jobChanged(job: Job): void; resync(): Promise<void> };
}

/**
 * Keeps this node in step with the nodes it shares the store with: a new shard map reloads what it
 * fires and what waits; the coordinator records the running runs of nodes that left the map as lost
 * (retried per policy); job changes made through other nodes reach the schedulers at once, and a run
 * another node routed here waits here for its time.
 */
export class ClusterFollower implements Service {
  readonly name = 'cluster follower';
  private stopWatching: (() => Promise<void>) | null = null;
  private stopped = false;
  /** What the last shard map set going (reloads; the lost runs of departed nodes, on the coordinator). */
  private following: Promise<void> = Promise.resolve();

  constructor(private readonly followers: ClusterFollowers) {}

  async start(): Promise<void> {
    const { cluster, store, launcher, scheduler, waitingRuns, hosts, events, localCopy, dependencies } =
      this.followers;
    const report = (error: Error) => events.emit('scheduler:error', { error });
    cluster.onMapChanged((map, previous) => {
      if (this.stopped) return;
      events.emit('cluster:map', { term: map.term, coordinator: map.coordinator, nodes: map.nodes.length });
      this.following = (async () => {
        await scheduler.reset();
        await waitingRuns.reset();
        if (!cluster.isCoordinator() || previous === null) return;
        const departed = previous.nodes.filter((node) => !map.nodes.some((live) => live.id === node.id));
        for (const gone of departed)
          await recordLostRunsOf(store, launcher, runsOfNode(gone.id), deadNodeLostReason(gone.id));
      })().catch((error: Error) => void report(error));
    });
    // A map that came in while the scheduler was starting (a node joining gets one within a heartbeat or
    // two) reached no listener: load once more with the map in force now.
    await scheduler.reset();
    await waitingRuns.reset();
    this.stopWatching = await store.watchChanges(
      (change) => {
        if (change.kind === 'missed') {
          localCopy?.resync();
          return void Promise.all([
            scheduler.reset(),
            waitingRuns.reset(),
            hosts.resync(),
            dependencies?.resync(),
          ]).catch(report);
        }
        // Every node hears a kill; the one running the run stops it (the others have nothing to kill).
        if (change.kind === 'kill') return void launcher.kill(change.runId, change.reason);
        if (change.kind === 'waiting-run')
          return void store
            .findRun(change.id)
            .then((run) => run?.state === 'scheduled' && waitingRuns.add(run))
            .catch(report);
        void store
          .findJob(change.id)
          .then((job) => {
            if (!job) return;
            scheduler.jobChanged(job);
            hosts.jobChanged(job);
            localCopy?.jobChanged(job);
            dependencies?.jobChanged(job);
          })
          .catch(report);
      },
      (error) => events.emit('cluster:error', { error }),
    );
  }

  /** The map's listener stays with the cluster: from here on it does nothing, once its last round is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.stopWatching?.();
    await this.following;
  }
}
