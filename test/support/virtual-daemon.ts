import { DaemonClient } from '../../src/client/daemon-client.js';
import type { LedgerEntry } from '../../src/core/ledger/entry.js';
import { Daemon, type DaemonOptions } from '../../src/daemon/daemon.js';
import type { DaemonEventMap } from '../../src/daemon/events.js';
import { resolveLocations } from '../../src/ipc/locations.js';
import type { Params, Results } from '../../src/ipc/protocol.js';
import { FakeClock, settle } from './fake-clock.js';
import { makeHome, removeHome, waitFor } from './sched-harness.js';

type JobInput = Params<'job.add'>['input'];
export type RunSummary = Results['run.list']['items'][number];

/**
 * The real daemon (store on a SQLite file, scheduler, run gate, launcher, executors with real child
 * processes, socket) in this process, on a FakeClock: a test moves time on with `clock.advance` and
 * asks over the socket as the CLI would. Only time is fake; commands still run for real, so a test
 * waits (in real time, bounded) for a run's outcome to arrive before it moves the clock on.
 */
export class VirtualDaemon {
  private constructor(
    readonly home: string,
    readonly clock: FakeClock,
    readonly daemon: Daemon,
    readonly client: DaemonClient,
  ) {}

  static async start(
    home: string,
    clock: FakeClock,
    options: Partial<DaemonOptions> = {},
  ): Promise<VirtualDaemon> {
    const locations = resolveLocations({ SCHED_HOME: home });
    const daemon = new Daemon(
      {
        locations,
        version: '0.0.0-virtual',
        shutdownGraceMs: 0,
        defaultTimezone: 'UTC',
        durability: 'relaxed',
        ...options,
      },
      // The test lets a fixed number of turns pass for a write: no write waits in real time for company.
      { clock, paceWrites: false },
    );
    await daemon.start();
    return new VirtualDaemon(home, clock, daemon, await DaemonClient.connect(locations.socketPath));
  }

  call<M extends Parameters<DaemonClient['call']>[0]>(method: M, params: Params<M>): Promise<Results[M]> {
    return this.client.call(method, params);
  }

  add(input: JobInput): Promise<Results['job.add']> {
    return this.call('job.add', { input });
  }

  /** The job's runs, oldest first. */
  async runsOf(job: string): Promise<RunSummary[]> {
    const page = await this.call('run.list', { jobRef: job, limit: 500 });
    return page.items.slice().reverse();
  }

  /** The job's ledger, oldest instant first. */
  async ledgerOf(job: string): Promise<LedgerEntry[]> {
    const page = await this.call('job.occurrences', { ref: job, limit: 500 });
    return page.items.slice().reverse();
  }

  async why(job: string, at?: number): Promise<string> {
    const answer = await this.call('job.why', { ref: job, ...(at === undefined ? {} : { at }) });
    return answer.sentence;
  }

  /** Resolves with the next such event's payload; real-time bounded, for what real processes do. */
  next<E extends keyof DaemonEventMap>(
    event: E,
    matches: (...args: DaemonEventMap[E]) => boolean = () => true,
    timeoutMs = 20_000,
  ): Promise<DaemonEventMap[E]> {
    const events = this.daemon.events;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        events.off(event, listener as never);
        reject(new Error(`no ${event} within ${timeoutMs} ms of real time`));
      }, timeoutMs);
      const listener = (...args: DaemonEventMap[E]) => {
        if (!matches(...args)) return;
        clearTimeout(timer);
        events.off(event, listener as never);
        resolve(args);
      };
      events.on(event, listener as never);
    });
  }

  /** Waits in real time (bounded) until no run is in flight, then lets what follows settle. */
  async idle(timeoutMs = 20_000): Promise<void> {
    await waitFor(async () => this.daemon.runningRuns() === 0, timeoutMs, 10);
    await settle();
  }

  /**
   * Advances virtual time step by step, waiting at each step for the runs it started to end (they are
   * real processes), so a run that ends "instantly" ends within its step, as it would in real time.
   */
  async run(forMs: number, stepMs = 250): Promise<void> {
    const end = this.clock.monotonic() + forMs;
    while (this.clock.monotonic() < end) {
      await this.clock.advance(Math.min(stepMs, end - this.clock.monotonic()));
      await this.idle();
    }
  }

  async stop(): Promise<void> {
    this.client.close();
    await this.daemon.stop('test done', 0);
  }
}

/** Homes and virtual daemons for one test file, stopped and removed after each test. */
export function useVirtualDaemons(register: (cleanup: () => Promise<void>) => void) {
  const running = new Set<VirtualDaemon>();
  const homes: string[] = [];
  register(async () => {
    for (const daemon of [...running]) await daemon.stop();
    running.clear();
    for (const home of homes.splice(0)) removeHome(home);
  });
  return {
    /** A temp home removed after the test, for a daemon that restarts in it. */
    home(): string {
      const dir = makeHome('sched-virtual-');
      homes.push(dir);
      return dir;
    },
    /** Starts a daemon on `clock` in `home` (a new temp home by default). */
    async start(
      clock = new FakeClock(),
      home?: string,
      options: Partial<DaemonOptions> = {},
    ): Promise<VirtualDaemon> {
      const dir = home ?? makeHome('sched-virtual-');
      if (home === undefined) homes.push(dir);
      const daemon = await VirtualDaemon.start(dir, clock, options);
      running.add(daemon);
      const stop = daemon.stop.bind(daemon);
      daemon.stop = async () => {
        running.delete(daemon);
        await stop();
      };
      return daemon;
    },
  };
}
