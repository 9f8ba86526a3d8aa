import fs from 'node:fs';
import os from 'node:os';
import type { Job } from '../core/job.js';
import type { Run } from '../core/run.js';
import type { Locations } from '../ipc/locations.js';
import type { RequestMessage } from '../ipc/protocol.js';
import { serve, type TransportServer } from '../ipc/transport.js';
import { newId } from '../store/ids.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { systemClock, type Clock } from './clock.js';
import { DaemonEvents } from './events.js';
import { CommandExecutor } from './executor/command-executor.js';
import { HttpExecutor } from './executor/http-executor.js';
import { IdempotencyGuard } from './idempotency-guard.js';
import { JobLookup } from './job-lookup.js';
import { JobService } from './job-service.js';
import { EventStream } from './event-stream.js';
import { createRequestRouter, type DaemonControl } from './request-router.js';
import { RunLauncher } from './run-launcher.js';
import { RunService } from './run-service.js';
import { Scheduler } from './scheduler/scheduler.js';
import { WaitingRuns } from './scheduler/waiting-runs.js';
import { acquireInstanceLock, type InstanceLock } from './single-instance-lock.js';
import { checkHealth, type HealthCheck } from './observability/health.js';
import { serveObservability, type ObservabilityServer } from './observability/http-endpoint.js';
import { instrumentStore } from './observability/instrumented-store.js';
import { DaemonMetrics } from './observability/metrics.js';
import { Retention, type RetentionPolicy } from './retention.js';

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
}

const LOST_REASON =
  'the daemon stopped while this run was in progress (crash or kill -9); its outcome is unknown';
const SHUTDOWN_REASON = 'killed: the daemon shut down before the run finished';

/** The daemon process: owns the lock, store, executors, scheduler and socket, started and stopped in order. */
export class Daemon {
  readonly events = new DaemonEvents();
  private readonly clock: Clock;
  private lock: InstanceLock | null = null;
  private store: Store | null = null;
  private launcher: RunLauncher | null = null;
  private scheduler: Scheduler | null = null;
  private waitingRuns: WaitingRuns | null = null;
  private server: TransportServer | null = null;
  private observability: ObservabilityServer | null = null;
  private retention: Retention | null = null;
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
    fs.mkdirSync(locations.home, { recursive: true, mode: 0o700 });
    // Everything the daemon creates (database, socket) is for its owner only.
    process.umask(0o077);
    this.lock = acquireInstanceLock(locations.lockPath);

    const synchronous = this.options.durability === 'full' ? 'FULL' : 'NORMAL';
    const rawStore = (this.store = openSqliteStore(locations.databasePath, { synchronous }));
    let metrics: DaemonMetrics | null = null;
    let store: Store = rawStore;
    if (this.options.metricsAddress) {
      const storeLatency = (operation: string, seconds: number) =>
        metrics?.storeLatency.observe({ operation }, seconds);
      store = instrumentStore(rawStore, storeLatency);
    }
    const fence = await store.nextFenceEpoch();
    const node = os.hostname();
    const actor = os.userInfo().username;
    const lookup = new JobLookup(store);
    const idempotency = new IdempotencyGuard(store, clock);
    const http = new HttpExecutor({ now: () => clock.now() });
    const waitingRuns = (this.waitingRuns = new WaitingRuns({
      store,
      clock,
      events: this.events,
      start: (run) => this.startWaiting(run),
    }));
    const launcher = (this.launcher = new RunLauncher({
      store,
      clock,
      newId,
      node,
      fence,
      http,
      events: this.events,
      commands: await CommandExecutor.start(),
      baseEnv: inheritedEnvironment(),
      waitForRetry: (run) => waitingRuns.add(run),
    }));
    await this.recoverRunningRuns(store, launcher);
    this.auditDeadRuns(store, actor);

    const scheduler = (this.scheduler = new Scheduler({
      store,
      clock,
      events: this.events,
      node,
      fence,
      newId,
      launch: (run, job) => launcher.launch(run, job),
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
        store: `sqlite:${locations.databasePath}`,
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
      lookup,
      idempotency,
      newId,
      actor,
      node,
      fence,
      finishedRun: (id, ms) => this.finishedRun(id, ms),
    });
    const stream = new EventStream(this.events, clock);
    const control: DaemonControl = {
      subscribe: async (requestId, connection, { types, runId }) => {
        stream.subscribe(requestId, connection, { types, runId });
        return { subscribed: true, types: types ?? null };
      },
      stop: async ({ graceMs }) => {
        // Answer first: the reply must leave before the socket closes.
        setTimeout(
          () =>
            void this.stop('stop requested with sched daemon stop', graceMs).then(() =>
              this.options.onStopped?.(),
            ),
          50,
        );
        return { stopping: true, pid: process.pid };
      },
    };
    const route = createRequestRouter(jobs, runs, control, (error) =>
      this.events.emit('scheduler:error', { error }),
    );
    this.server = await serve(locations.socketPath, (message, connection) => {
      const request = message as RequestMessage;
      if (request?.kind !== 'request') return;
      void route(request, connection).then((response) => {
        if (request.method === this.options.crashBeforeReply && response.ok)
          process.kill(process.pid, 'SIGKILL');
        connection.send(response);
      });
    });
    fs.chmodSync(locations.socketPath, 0o600);
    await scheduler.start();
    await waitingRuns.start();
    this.retention = new Retention(store, clock, this.events, this.options.retention);
    this.retention.start();
    if (this.options.metricsAddress) {
      metrics = new DaemonMetrics({
        events: this.events,
        countJobs: (state) => rawStore.countJobs(state),
        runningRuns: () => launcher.runningCount(),
        waitingRuns: () => waitingRuns.size,
        troubledBreakers: () => http.troubledBreakers(),
      });
      this.observability = await this.serveObservability(metrics, rawStore, startedAt);
    }
    this.events.emit('daemon:started', {
      pid: process.pid,
      at: startedAt,
      metricsAddress: this.observabilityAddress,
    });
  }

  private serveObservability(
    metrics: DaemonMetrics,
    store: Store,
    startedAt: number,
  ): Promise<ObservabilityServer> {
    const context = {
      now: () => this.clock.now(),
      startedAt,
      version: this.options.version,
      timeoutMs: 2_000,
    };
    const loop: HealthCheck = {
      name: 'event_loop',
      check: () => new Promise((resolve) => setImmediate(resolve)),
    };
    const database: HealthCheck = { name: 'database', check: () => store.ping() };
    const socket: HealthCheck = {
      name: 'socket',
      check: async () => {
        if (!fs.existsSync(this.options.locations.socketPath))
          throw new Error(`socket ${this.options.locations.socketPath} is missing`);
      },
    };
    return serveObservability(this.options.metricsAddress!, {
      metrics: async () => ({ contentType: metrics.contentType, body: await metrics.metricsText() }),
      health: () => checkHealth([loop, database, socket], context),
      ready: () => checkHealth([database, socket], context),
      live: () => checkHealth([loop], context),
    });
  }

  /** The address the metrics and health listener is bound to, once started. */
  get observabilityAddress(): string | null {
    return this.observability?.address ?? null;
  }

  /** Runs a crash left `running` have an unknown outcome: they become `lost` and are retried per policy. */
  private async recoverRunningRuns(store: Store, launcher: RunLauncher): Promise<void> {
    for (const run of await store.listRunningRuns()) {
      const job = await store.findJob(run.jobId);
      if (job) await launcher.recordLost(run.id, job, run.attempt, run.scheduledFor, LOST_REASON);
    }
  }

  private async startWaiting(run: Run): Promise<void> {
    const job: Job | null = await this.store!.findJob(run.jobId);
    if (job) this.launcher!.launch(run, job);
  }

  private auditDeadRuns(store: Store, actor: string): void {
    this.events.on('run:dead', (run) => {
      const entry = {
        id: newId(),
        at: this.clock.now(),
        actor,
        action: 'run.dead',
        jobId: run.jobId,
        before: null,
        after: {
          jobName: run.jobName,
          runId: run.id,
          attempt: run.attempt,
          state: run.state,
          error: run.error,
        },
      };
      store.appendAudit(entry).catch((error: Error) => this.events.emit('scheduler:error', { error }));
    });
  }

  private finishedRun(runId: string, timeoutMs: number): Promise<Run | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), timeoutMs);
      const onEnd = (run: Run) => {
        if (run.id === runId) done(run);
      };
      const done = (run: Run | null) => {
        clearTimeout(timer);
        this.events.off('run:finished', onEnd);
        resolve(run);
      };
      this.events.on('run:finished', onEnd);
    });
  }

  private async shutdown(reason: string, graceMs: number): Promise<void> {
    this.events.emit('daemon:stopping', { at: this.clock.now(), reason });
    this.scheduler?.stop();
    this.waitingRuns?.stop();
    await this.retention?.stop();
    await this.observability?.close();
    await this.server?.close();
    fs.rmSync(this.options.locations.socketPath, { force: true });
    if (this.launcher) {
      const deadline = this.clock.now() + graceMs;
      while (this.launcher.runningCount() > 0 && this.clock.now() < deadline && !this.hurried)
        await sleep(50);
      await this.launcher.stop(SHUTDOWN_REASON);
    }
    await this.store?.close();
    this.lock?.release();
  }
}

function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
