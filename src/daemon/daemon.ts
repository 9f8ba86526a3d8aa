import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Job } from '../core/job.js';
import type { Run } from '../core/run.js';
import type { Locations } from '../ipc/locations.js';
import { serve, type TransportServer } from '../ipc/transport.js';
import { newId } from '../store/ids.js';
import { DEFAULT_LEASE_TTL_MS, Federation } from './cluster/federation.js';
import { followCluster } from './cluster/follow-cluster.js';
import { singleNodeStatus } from './cluster/single-node-status.js';
import { openStoreAt, reachPostgres, redactUrl, storeTarget } from './store-target.js';
import type { Store } from '../store/store.js';
import { sleep, systemClock, type Clock } from './clock.js';
import { DaemonEvents, nextRunEnd } from './events.js';
import { auditDeadRuns } from './dead-run-audit.js';
import { crashLostReason, everyRun, recordLostRunsOf, runsOfNode, stopLeftoversOf } from './lost-runs.js';
import { ChildJournal } from './orphans/child-journal.js';
import { bindPrivately, createPrivateFile } from './private-file.js';
import { CommandExecutor } from './executor/command-executor.js';
import { HttpExecutor } from './executor/http-executor.js';
import { IdempotencyGuard } from './idempotency-guard.js';
import { JobLookup } from './job-lookup.js';
import { JobService } from './job-service.js';
import { EventStream } from './event-stream.js';
import { createRequestRouter, type DaemonControl } from './request-router.js';
import { answerSocketRequests } from './socket-requests.js';
import { DependencyTrigger } from './dependency-trigger.js';
import { OccurrenceService } from './occurrence-service.js';
import { RunGate } from './run-gate.js';
import { inheritedEnvironment, RunLauncher } from './run-launcher.js';
import { LiveOutput } from './live-output.js';
import { RunService } from './run-service.js';
import { HostScheduler } from './scheduler/host-scheduler.js';
import { Scheduler } from './scheduler/scheduler.js';
import { WaitingRuns } from './scheduler/waiting-runs.js';
import { acquireDatabaseLock, acquireInstanceLock, type InstanceLock } from './single-instance-lock.js';
import { serveDaemonEndpoints } from './observability/daemon-endpoints.js';
import type { ObservabilityServer } from './observability/http-endpoint.js';
import { instrumentStore } from './observability/instrumented-store.js';
import { DaemonMetrics } from './observability/metrics.js';
import { Retention, type RetentionPolicy } from './retention.js';
import { Alerting, type NotifySettings } from './notify/alerting.js';
import { registerAlertMetrics } from './notify/alert-metrics.js';

export interface DaemonOptions {
  locations: Locations;
  version: string;
  /** How long running jobs may go on after SIGTERM before they are killed. */
  shutdownGraceMs: number;
  defaultTimezone: string;
  /** `full` syncs every commit before replying; `relaxed` trades the last moments before a power cut for speed. */
  durability: 'full' | 'relaxed';
  clock?: Clock;
  /** Test hook: die with SIGKILL after this method's change is committed, before replying. */
  crashBeforeReply?: string;
  /** Called once a stop asked for over the socket has finished, so the process can exit. */
  onStopped?: () => void;
  /** Where to keep the store; default SQLite in the home (a postgres:// URL once federation lands). */
  storeUrl?: string;
  /** At most this many runs at once; further due runs wait in due order. Default: no limit. */
  maxConcurrent?: number;
  /** Prometheus `/metrics` and `/health` listener, `host:port`; off when absent. */
  metricsAddress?: string;
  retention?: Partial<RetentionPolicy>;
  /** Federation settings, used when the store is PostgreSQL. */
  cluster?: { labels?: Record<string, string>; heartbeatIntervalMs?: number; leaseTtlMs?: number };
  /** `[notify]`: default targets and events, throttle, and how e-mail and signed webhooks go out. */
  notify?: NotifySettings;
}

const SHUTDOWN_REASON = 'killed: the daemon shut down before the run finished';

/** The daemon process: owns the lock, store, executors, scheduler and socket, started and stopped in order. */
export class Daemon {
  readonly events = new DaemonEvents();
  private readonly clock: Clock;
  private lock: InstanceLock | null = null;
  private databaseLock: InstanceLock | null = null;
  private store: Store | null = null;
  private launcher: RunLauncher | null = null;
  private scheduler: Scheduler | null = null;
  private waitingRuns: WaitingRuns | null = null;
  private gate: RunGate | null = null;
  private federation: Federation | null = null;
  private hostScheduler: HostScheduler | null = null;
  private stopWatchingJobs: (() => Promise<void>) | null = null;
  private server: TransportServer | null = null;
  private observability: ObservabilityServer | null = null;
  private retention: Retention | null = null;
  private alerting: Alerting | null = null;
  private stopping: Promise<void> | null = null;
  private hurried = false;

  constructor(private readonly options: DaemonOptions) {
    this.clock = options.clock ?? systemClock;
  }

  async start(): Promise<void> {
    try {
      await this.startServices();
    } catch (error) {
      if (this.lock) await this.stop('start failed', 0);
      throw error;
    }
  }

  /** Runs this daemon is running now (0 before it has started). */
  runningRuns(): number {
    return this.launcher?.runningCount() ?? 0;
  }

  /** A second stop signal: skip what is left of the grace period. */
  hurry(): void {
    this.hurried = true;
  }

  /** Stops firing, lets running jobs finish within the grace period, then kills and records them. Idempotent. */
  stop(reason = 'stop requested', graceMs = this.options.shutdownGraceMs): Promise<void> {
    this.stopping ??= this.shutdown(reason, graceMs);
    return this.stopping;
  }

  private async startServices(): Promise<void> {
    const { locations } = this.options;
    const clock = this.clock;
    // The umask stays the one the daemon was started with, for its jobs; its own files get explicit modes.
    fs.mkdirSync(locations.home, { recursive: true, mode: 0o700 });
    this.lock = acquireInstanceLock(locations.lockPath);

    const target = storeTarget(this.options.storeUrl, locations.databasePath);
    if (target.kind === 'sqlite') {
      this.databaseLock = acquireDatabaseLock(target.path);
      createPrivateFile(target.path);
    }
    const rawStore: Store = (this.store = await openStoreAt(
      target,
      this.options.durability,
      // A node stalled past its lease has lost its shards: its open transaction must not hold up theirs.
      this.options.cluster?.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
    ));
    let metrics: DaemonMetrics | null = null;
    let store: Store = rawStore;
    if (this.options.metricsAddress) {
      const storeLatency = (operation: string, seconds: number) =>
        metrics?.storeLatency.observe({ operation }, seconds);
      store = instrumentStore(rawStore, clock, storeLatency);
    }
    const federation = (this.federation =
      target.kind === 'postgres'
        ? await reachPostgres(target.url, () =>
            Federation.join({
              url: target.url,
              home: locations.home,
              version: this.options.version,
              labels: this.options.cluster?.labels ?? {},
              address: () => this.observabilityAddress ?? '',
              load: () => this.launcher?.runningCount() ?? 0,
              heartbeatIntervalMs: this.options.cluster?.heartbeatIntervalMs,
              leaseTtlMs: this.options.cluster?.leaseTtlMs,
              clock,
              onError: (error) => this.events.emit('cluster:error', { error }),
            }),
          )
        : null);
    const epoch = await store.nextFenceEpoch();
    // In a federation a run's fence is the term of the shard map it was fired from; alone, the store's epoch.
    const fence = federation ? () => federation.term : () => epoch;
    const node = federation?.nodeId ?? os.hostname();
    const actor = os.userInfo().username;
    const journal = new ChildJournal(path.join(locations.home, 'children'));
    // Alone on a SQLite database every run still `running` is a dead daemon's, whatever node it names (a
    // container restarted under a new hostname); in a federation only this node's are.
    const leftBehind = federation ? runsOfNode(node) : everyRun;
    const stoppedLeftovers = await stopLeftoversOf(store, leftBehind, journal, this.events, clock);
    const lookup = new JobLookup(store);
    const idempotency = new IdempotencyGuard(store, clock);
    const http = new HttpExecutor({ clock });
    const waitingRuns = (this.waitingRuns = new WaitingRuns({
      store,
      clock,
      events: this.events,
      due: (run) => this.startWaiting(run),
    }));
    let dependencies: DependencyTrigger | null = null;
    const liveOutput = new LiveOutput();
    const alerting = (this.alerting = new Alerting({
      store,
      clock,
      events: this.events,
      lookup,
      newId,
      node,
      fence,
      settings: this.options.notify,
    }));
    const launcher = (this.launcher = new RunLauncher({
      store,
      clock,
      newId,
      node,
      runFence: fence,
      http,
      events: this.events,
      commands: await CommandExecutor.start({ journalDir: journal.dir, clock }),
      baseEnv: inheritedEnvironment(),
      liveOutput,
      waitForRetry: (run) => waitingRuns.add(run),
      extraEnvironment: (run) => dependencies?.environmentFor(run) ?? {},
      notices: alerting.deliveriesFor,
    }));
    const gate = (this.gate = new RunGate({
      store,
      clock,
      events: this.events,
      maxConcurrent: this.options.maxConcurrent ?? null,
      launch: (run, job) => launcher.launch(run, job),
      kill: (runId, reason) => launcher.kill(runId, reason),
    }));
    dependencies = new DependencyTrigger({ store, clock, events: this.events, gate, newId, node, fence });
    await recordLostRunsOf(store, launcher, leftBehind, (runId) =>
      crashLostReason(stoppedLeftovers.get(runId)),
    );
    auditDeadRuns(this.events, store, clock, actor, newId);

    const scheduler = (this.scheduler = new Scheduler({
      store,
      clock,
      events: this.events,
      node,
      runFence: fence,
      newId,
      gate,
      ...(federation
        ? {
            owns: (job: Job) => federation.owns(job),
            fence: () => federation.fence(),
            onFenced: () => this.events.emit('cluster:fenced', { term: federation.term }),
          }
        : {}),
    }));
    const startedAt = clock.now();
    const jobs = new JobService({
      store,
      clock,
      events: this.events,
      scheduler,
      lookup,
      idempotency,
      newId,
      actor,
      defaultTimezone: this.options.defaultTimezone,
      breakerStatus: (url) => http.breakerStatus(url),
      status: () => ({
        pid: process.pid,
        version: this.options.version,
        home: locations.home,
        socketPath: locations.socketPath,
        store: target.kind === 'postgres' ? redactUrl(target.url) : `sqlite:${target.path}`,
        node,
        startedAt,
        runningRuns: launcher.runningCount(),
      }),
    });
    const runs = new RunService({
      store,
      clock,
      events: this.events,
      launcher,
      gate,
      lookup,
      idempotency,
      newId,
      actor,
      node,
      runFence: fence,
      liveOutput,
      finishedRun: (id, ms) => nextRunEnd(this.events, clock, id, ms),
    });
    const stream = new EventStream(this.events, clock);
    const control: DaemonControl = {
      subscribe: async (requestId, connection, { types, runId }) => {
        stream.subscribe(requestId, connection, { types, runId });
        return { subscribed: true, types: types ?? null };
      },
      clusterStatus: async () =>
        federation
          ? federation.status(scheduler.recentLatenessMs())
          : singleNodeStatus({
              node,
              version: this.options.version,
              startedAt,
              now: clock.now(),
              load: launcher.runningCount(),
              firingLagMs: scheduler.recentLatenessMs(),
              term: epoch,
              labels: this.options.cluster?.labels ?? {},
            }),
      stop: async ({ graceMs }) => {
        // Answer first: the reply must leave before the socket closes.
        clock.setTimer(
          50,
          () =>
            void this.stop('stop requested with sched daemon stop', graceMs).then(() =>
              this.options.onStopped?.(),
            ),
        );
        return { stopping: true, pid: process.pid };
      },
    };
    const occurrences = new OccurrenceService({
      store,
      clock,
      events: this.events,
      lookup,
      gate,
      newId,
      actor,
      node,
      fence,
    });
    const route = createRequestRouter(
      jobs,
      runs,
      occurrences,
      control,
      (error) => this.events.emit('scheduler:error', { error }),
      alerting.requests,
    );
    this.server = await bindPrivately(() =>
      serve(
        locations.socketPath,
        answerSocketRequests(route, this.events, { crashBeforeReply: this.options.crashBeforeReply }),
      ),
    );
    fs.chmodSync(locations.socketPath, 0o600);
    await scheduler.start();
    await waitingRuns.start();
    if (federation) {
      const hosts = (this.hostScheduler = new HostScheduler({
        store,
        clock,
        events: this.events,
        node,
        runFence: fence,
        newId,
        gate,
        matches: (job) => federation.matches(job),
      }));
      for (const event of ['job:created', 'job:updated', 'job:cancelled'] as const)
        this.events.on(event, (job) => hosts.jobChanged(job));
      await hosts.start();
      this.stopWatchingJobs = await followCluster({
        federation,
        store,
        launcher,
        scheduler,
        waitingRuns,
        hosts,
        events: this.events,
      });
    }
    this.retention = new Retention(store, clock, this.events, this.options.retention);
    this.retention.start();
    await alerting.start();
    if (this.options.metricsAddress) {
      metrics = new DaemonMetrics({
        events: this.events,
        countJobs: (state) => rawStore.countJobs(state),
        runningRuns: () => launcher.runningCount(),
        waitingRuns: () => waitingRuns.size,
        troubledBreakers: () => http.troubledBreakers(),
        cluster: async () => (federation ? federation.status(scheduler.recentLatenessMs()) : null),
      });
      registerAlertMetrics(metrics.registry, this.events, alerting.watch);
      this.observability = await serveDaemonEndpoints({
        address: this.options.metricsAddress,
        metrics,
        store: rawStore,
        socketPath: locations.socketPath,
        clock,
        startedAt,
        version: this.options.version,
      });
    }
    this.events.emit('daemon:started', {
      pid: process.pid,
      at: startedAt,
      metricsAddress: this.observabilityAddress,
    });
  }

  /** The address the metrics and health listener is bound to, once started. */
  get observabilityAddress(): string | null {
    return this.observability?.address ?? null;
  }

  /** A waiting run's time has come: it starts when its job's policy and the concurrency limit allow. */
  private async startWaiting(run: Run): Promise<void> {
    const job: Job | null = await this.store!.findJob(run.jobId);
    if (job === null) return;
    if (this.federation && !this.federation.startsWaitingRun(run, job)) return;
    if (job.state === 'cancelled') {
      // Claimed first, so a run that something else started meanwhile is left alone.
      if (await this.store!.claimRun(run.id, this.clock.now())) {
        await this.launcher!.recordCancelled(
          run.id,
          job,
          'the job was cancelled before this run could start',
        );
      }
      return;
    }
    this.gate!.hold(run, job);
  }

  private async shutdown(reason: string, graceMs: number): Promise<void> {
    this.events.emit('daemon:stopping', { at: this.clock.now(), reason });
    this.scheduler?.stop();
    this.hostScheduler?.stop();
    this.waitingRuns?.stop();
    this.gate?.close();
    await this.gate?.settled();
    await this.stopWatchingJobs?.();
    await this.retention?.stop();
    await this.alerting?.stop();
    await this.observability?.close();
    await this.server?.close();
    fs.rmSync(this.options.locations.socketPath, { force: true });
    if (this.launcher) {
      const deadline = this.clock.monotonic() + graceMs;
      while (this.launcher.runningCount() > 0 && this.clock.monotonic() < deadline && !this.hurried)
        await sleep(this.clock, 50);
      await this.launcher.stop(SHUTDOWN_REASON);
    }
    // Leaving after the runs are recorded: the shards move on only once nothing here still runs.
    await this.federation?.leave();
    await this.store?.close();
    this.databaseLock?.release();
    this.lock?.release();
  }
}
