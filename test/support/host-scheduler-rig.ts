import path from 'node:path';
import type { Job, Schedule, TimePolicy } from '../../src/core/job.js';
import { DEFAULT_TIME_POLICY } from '../../src/core/job-defaults.js';
import type { Run } from '../../src/core/run.js';
import { LocalAutonomy } from '../../src/daemon/autonomy/local-autonomy.js';
import { StoreReachability } from '../../src/daemon/autonomy/store-reachability.js';
import type { DaemonEvents } from '../../src/daemon/events.js';
import { RunGate } from '../../src/daemon/run-gate.js';
import { HostScheduler } from '../../src/daemon/scheduler/host-scheduler.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { definition, stamp, T0 } from '../store/conformance/fixtures.js';
import type { FakeClock } from './fake-clock.js';

export const SECOND = 1_000;

/**
 * A peer's local autonomy, journaling in `dir` while `store` answers NO_QUORUM: it runs every job, and keeps
 * no copy of the definitions (a peer reads its own copy of the log).
 */
export async function startPeerAutonomy(options: {
  dir: string;
  store: Store;
  clock: FakeClock;
  events: DaemonEvents;
}): Promise<LocalAutonomy> {
  const { dir, store, clock, events } = options;
  const autonomy = new LocalAutonomy({
    file: path.join(dir, 'local-copy.db'),
    store,
    reachability: new StoreReachability(clock, events, 'quorum'),
    clock,
    events,
    mayRun: () => true,
    copiesDefinitions: false,
  });
  await autonomy.start();
  return autonomy;
}

/** One node's every-host firing, on a real SQLite store, with runs handed to `launched` (nothing executes them). */
export interface HostSchedulerRig {
  job: Job;
  hosts: HostScheduler;
  gate: RunGate;
  autonomy: LocalAutonomy;
  launched: Run[];
  stop(): Promise<void>;
}

/**
 * Creates an every-second every-host job `beat` (its runs never end, so each instant's run starts beside the
 * last unless `policy` says otherwise) and starts node-a's HostScheduler on `store` (the SQLite store itself,
 * or a wrapper of it), with local autonomy journaling in `dir`.
 */
export async function startHostSchedulerRig(options: {
  dir: string;
  sqlite: SqliteStore;
  store: Store;
  clock: FakeClock;
  events: DaemonEvents;
  policy?: Partial<TimePolicy>;
  /** The job's schedule and zone (every second, UTC by default). */
  schedule?: Schedule;
  timezone?: string;
}): Promise<HostSchedulerRig> {
  const { dir, sqlite, store, clock, events } = options;
  const job = await sqlite.createJob(
    {
      id: 'job-beat',
      definition: definition('beat', {
        schedule: options.schedule ?? { kind: 'every', intervalMs: SECOND, anchorMs: T0 },
        ...(options.timezone === undefined ? {} : { timezone: options.timezone }),
        placement: { mode: 'every-host', on: {} },
        policy: { ...DEFAULT_TIME_POLICY, concurrency: 'allow', ...options.policy },
      }),
      owner: 'alice',
      now: T0,
      nextRunAt: T0 + SECOND,
    },
    stamp('job.create'),
  );
  const launched: Run[] = [];
  const gate = new RunGate({
    store,
    clock,
    events,
    maxConcurrent: null,
    launch: (run) => void launched.push(run),
    kill: () => false,
  });
  const autonomy = await startPeerAutonomy({ dir, store, clock, events });
  let ids = 0;
  const hosts = new HostScheduler({
    store,
    clock,
    events,
    node: 'node-a',
    runFence: () => 1,
    newId: () => `run-${(ids += 1)}`,
    gate,
    matches: () => true,
    offline: autonomy.offline,
  });
  await hosts.start();
  return {
    job,
    hosts,
    gate,
    autonomy,
    launched,
    async stop() {
      await hosts.stop();
      await autonomy.stop();
      gate.close();
      await gate.settled();
    },
  };
}
