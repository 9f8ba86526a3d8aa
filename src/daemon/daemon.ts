import fs from 'node:fs';
import os from 'node:os';
import type { RequestMessage } from '../ipc/protocol.js';
import type { Locations } from '../ipc/locations.js';
import { serve, type TransportServer } from '../ipc/transport.js';
import { newId } from '../store/ids.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { systemClock, type Clock } from './clock.js';
import { DaemonEvents } from './events.js';
import { CommandExecutor } from './executor/command-executor.js';
import { JobService } from './job-service.js';
import { createRequestRouter } from './request-router.js';
import { RunLauncher } from './run-launcher.js';
import { Scheduler } from './scheduler/scheduler.js';
import { acquireInstanceLock, type InstanceLock } from './single-instance-lock.js';

export interface DaemonOptions {
  locations: Locations;
  version: string;
  /** How long running jobs may go on after SIGTERM before they are killed. */
  shutdownGraceMs: number;
  defaultTimezone: string;
  clock?: Clock;
}

const LOST_REASON =
  'the daemon stopped while this run was in progress (crash or kill -9); its outcome is unknown';
const SHUTDOWN_REASON = 'killed: the daemon shut down before the run finished';

/** The daemon process: owns the lock, store, executor, scheduler and socket, started and stopped in order. */
export class Daemon {
  readonly events = new DaemonEvents();
  private lock: InstanceLock | null = null;
  private store: Store | null = null;
  private executor: CommandExecutor | null = null;
  private scheduler: Scheduler | null = null;
  private launcher: RunLauncher | null = null;
  private server: TransportServer | null = null;
  private stopping: Promise<void> | null = null;
  private hurried = false;

  constructor(private readonly options: DaemonOptions) {}

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

  private async startServices(): Promise<void> {
    const { locations } = this.options;
    const clock = this.options.clock ?? systemClock;
    fs.mkdirSync(locations.home, { recursive: true, mode: 0o700 });
    // Everything the daemon creates (database, socket) is for its owner only.
    process.umask(0o077);
    this.lock = acquireInstanceLock(locations.lockPath);

    const store = (this.store = openSqliteStore(locations.databasePath));
    const fence = await store.nextFenceEpoch();
    const node = os.hostname();
    for (const run of await store.markUnfinishedRunsLost(clock.now(), LOST_REASON))
      this.events.emit('run:lost', run);

    this.executor = await CommandExecutor.start();
    const launcher = (this.launcher = new RunLauncher(
      store,
      this.executor,
      this.events,
      inheritedEnvironment(),
    ));
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
    const service = new JobService({
      store,
      clock,
      events: this.events,
      scheduler,
      launcher,
      newId,
      node,
      actor: os.userInfo().username,
      fence: () => fence,
      defaultTimezone: this.options.defaultTimezone,
      status: () => ({
        pid: process.pid,
        version: this.options.version,
        home: locations.home,
        socketPath: locations.socketPath,
        store: `sqlite:${locations.databasePath}`,
        node,
        startedAt,
      }),
    });
    const route = createRequestRouter(service, (error) => this.events.emit('scheduler:error', { error }));
    this.server = await serve(locations.socketPath, (message, connection) => {
      const request = message as RequestMessage;
      if (request?.kind !== 'request') return;
      void route(request).then((response) => connection.send(response));
    });
    fs.chmodSync(locations.socketPath, 0o600);
    await scheduler.start();
    this.events.emit('daemon:started', { pid: process.pid, at: startedAt });
  }

  /** Stops firing, lets running jobs finish within the grace period, then kills and records them. Idempotent. */
  stop(reason = 'stop requested', graceMs = this.options.shutdownGraceMs): Promise<void> {
    this.stopping ??= this.shutdown(reason, graceMs);
    return this.stopping;
  }

  private async shutdown(reason: string, graceMs: number): Promise<void> {
    this.events.emit('daemon:stopping', { at: Date.now(), reason });
    this.scheduler?.stop();
    await this.server?.close();
    fs.rmSync(this.options.locations.socketPath, { force: true });
    if (this.launcher && this.executor) {
      const deadline = Date.now() + graceMs;
      while (this.executor.runningCount() > 0 && Date.now() < deadline && !this.hurried) await sleep(50);
      await this.executor.stop({ killReason: SHUTDOWN_REASON });
      await this.launcher.settled();
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
