import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childSlots, type ChildSlots } from '../../core/child-slots.js';
import type { RunOutcome } from '../../core/run.js';
import { builtModuleUrl } from '../../runtime/built-module.js';
import { systemClock, type CancelTimer, type Clock } from '../clock.js';
import { ExecutorSignals } from './executor-signals.js';
import { openFileLimit } from './open-file-limit.js';
import { signalProcessGroup } from './process-group.js';
import { timedOutAfter } from './timed-out.js';
import type {
  CommandExecution,
  FromWorkerMessage,
  SpawnWorkerOptions,
  TerminationState,
  ToWorkerMessage,
} from './worker-protocol.js';

export type { CommandExecution } from './worker-protocol.js';

export interface ExecutorEvents {
  /** Always precedes `finished`; pid is null when the command could not be started. */
  started: (runId: string, pid: number | null, startedAt: number) => void;
  finished: (runId: string, outcome: RunOutcome) => void;
  /**
   * Live output, a batch at a time (at most every 100 ms per run), always before `finished`;
   * `totalBytes` is all the stream has written so far (a batch over 64 KiB loses its start).
   */
  output: (runId: string, stream: 'stdout' | 'stderr', data: string, totalBytes: number) => void;
}

export const DEFAULT_KILL_GRACE_MS = 2_000;
/** On top of the kill grace and the worker's drain wait, before stop() gives up on a run. */
const STOP_MARGIN_MS = 3_000;
/** How long a stopped spawner process has to exit once its channel is closed, before it is killed. */
const WORKER_EXIT_WAIT_MS = 2_000;

export interface ExecutorOptions {
  killGraceMs?: number;
  /** The children alive at once and the descriptors they may hold; default: childSlots' for this process. */
  slots?: ChildSlots;
  journalDir?: string;
  clock?: Clock;
}

/**
 * Runs command jobs from a spawner process of its own (spawn-worker.ts says why not from the daemon); the
 * daemon only sends requests and receives events.
 */
export class CommandExecutor {
  private worker: ChildProcess | null = null;
  /** Runs handed to the worker and not yet finished, with their pid once started. */
  private readonly running = new Map<string, number | null>();
  /** The runs of `running` without a `started` event yet: most wait in the worker for a free slot. */
  private readonly unstarted = new Set<string>();
  /** The timeout of each started run with one, armed on the daemon's clock. */
  private readonly timeouts = new Map<string, CancelTimer>();
  private readonly timeoutMsOf = new Map<string, number>();
  private readonly signals: ExecutorSignals;
  private stopped: Promise<void> | null = null;

  private constructor(
    private readonly workerUrl: URL,
    private readonly options: SpawnWorkerOptions,
    private readonly clock: Clock,
  ) {
    this.signals = new ExecutorSignals(clock);
  }

  /**
   * Spins up the worker; resolves once it is ready to spawn. With `journalDir`, every live child is
   * journaled there, so the next daemon can stop it if this one is killed.
   */
  static async start(options: ExecutorOptions = {}): Promise<CommandExecutor> {
    const slots = options.slots ?? childSlots(openFileLimit(), null);
    const executor = new CommandExecutor(
      builtModuleUrl(import.meta.url, 'spawn-worker.js'),
      {
        killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
        ...slots,
        journalDir: options.journalDir ?? null,
      },
      options.clock ?? systemClock,
    );
    await executor.launchWorker().ready;
    return executor;
  }

  /** Returns a function that removes the listener. */
  on<E extends keyof ExecutorEvents>(event: E, listener: ExecutorEvents[E]): () => void {
    return this.signals.on(event, listener);
  }

  run(execution: CommandExecution): void {
    if (this.stopped !== null) throw new Error('command executor is stopped');
    if (this.running.has(execution.runId)) throw new Error(`run ${execution.runId} is already executing`);
    this.running.set(execution.runId, null);
    this.unstarted.add(execution.runId);
    if (execution.timeoutMs !== null) this.timeoutMsOf.set(execution.runId, execution.timeoutMs);
    // After a crash the worker is relaunched lazily; messages posted before it is ready are queued.
    const worker = this.worker ?? this.launchWorker().worker;
    worker.send({ type: 'run', execution } satisfies ToWorkerMessage);
  }

  /**
   * Kills the run's whole process group; its outcome becomes `cancelled` with this reason. A run still
   * waiting for a slot is cancelled without ever being spawned (its `started` has no pid).
   */
  kill(runId: string, reason: string): boolean {
    return this.terminate(runId, 'cancelled', reason);
  }

  private terminate(runId: string, state: TerminationState, reason: string): boolean {
    if (!this.running.has(runId) || this.worker === null) return false;
    this.worker.send({ type: 'kill', runId, state, reason } satisfies ToWorkerMessage);
    return true;
  }

  /** Counted from the child's start, not from the wait for a free slot. */
  private armTimeout(runId: string): void {
    const timeoutMs = this.timeoutMsOf.get(runId);
    if (timeoutMs === undefined) return;
    this.timeouts.set(
      runId,
      this.clock.setTimer(timeoutMs, () => this.terminate(runId, 'timed_out', timedOutAfter(timeoutMs))),
    );
  }

  private forgetTimeout(runId: string): void {
    this.timeouts.get(runId)?.();
    this.timeouts.delete(runId);
    this.timeoutMsOf.delete(runId);
  }

  /** Runs handed over and not finished, whether their child is alive yet or not. */
  runningCount(): number {
    return this.running.size;
  }

  /** Runs handed over whose child has not been spawned yet. */
  queuedCount(): number {
    return this.unstarted.size;
  }

  /** Commands with a child alive, those waiting for a slot, and how many slots there are. */
  childCounts(): { alive: number; waiting: number; maxChildren: number } {
    const waiting = this.unstarted.size;
    return { alive: this.running.size - waiting, waiting, maxChildren: this.options.maxChildren };
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Cancels what still waits for a slot, kills everything running, waits for their `finished` events,
   * then ends the worker. Idempotent.
   */
  stop(options: { killReason?: string } = {}): Promise<void> {
    this.stopped ??= this.shutdown(options.killReason ?? 'executor stopped');
    return this.stopped;
  }

  private async shutdown(killReason: string): Promise<void> {
    // The runs still waiting for a slot first: a killed running child frees its slot, and the spawner, reading
    // these requests in order, must not hand that slot to a run whose cancel it has not read yet.
    const started = [...this.running.keys()].filter((runId) => !this.unstarted.has(runId));
    for (const runId of [...this.unstarted, ...started]) this.kill(runId, killReason);
    await this.signals.waitUntilIdle(this.running.size === 0, this.options.killGraceMs + STOP_MARGIN_MS);
    const worker = this.worker;
    this.worker = null;
    this.reportAllLost('executor stopped before the run finished');
    if (worker !== null) await endWorker(worker, this.clock);
  }

  private launchWorker(): { worker: ChildProcess; ready: Promise<void> } {
    const worker = fork(fileURLToPath(this.workerUrl), [JSON.stringify(this.options)], {
      serialization: 'advanced',
      // Not the daemon's flags (a profiler, an inspector); its own session, so a terminal's signals to the
      // daemon's process group reach the daemon alone. Its umask, which the jobs get, is the daemon's: the
      // daemon starts it before binding its socket under a private one (bindPrivately).
      execArgv: [],
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.worker = worker;
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromWorkerMessage) =>
        message.type === 'ready' ? resolve() : this.onWorkerMessage(message),
      );
      const die = (reason: string): void => {
        reject(new Error(`executor worker crashed: ${reason}`));
        this.onWorkerDeath(worker, reason);
      };
      worker.on('error', (error) => die(error.message));
      worker.on('exit', (code, signal) =>
        die(signal === null ? `exited with code ${code}` : `killed by ${signal}`),
      );
    });
    ready.catch(ignore); // a relaunch nobody awaits reports its failure as lost runs instead
    return { worker, ready };
  }

  private onWorkerMessage(message: Exclude<FromWorkerMessage, { type: 'ready' }>): void {
    if (!this.running.has(message.runId)) return;
    if (message.type === 'output') {
      this.signals.emit('output', message.runId, message.stream, message.data, message.totalBytes);
      return;
    }
    this.unstarted.delete(message.runId);
    if (message.type === 'started') {
      this.running.set(message.runId, message.pid);
      if (message.pid !== null) this.armTimeout(message.runId);
      this.signals.emit('started', message.runId, message.pid, this.clock.now());
    } else {
      this.running.delete(message.runId);
      this.forgetTimeout(message.runId);
      this.signals.emit('finished', message.runId, { ...message.outcome, finishedAt: this.clock.now() });
      this.signals.notifyIfIdle(this.running.size === 0);
    }
  }

  private onWorkerDeath(worker: ChildProcess, reason: string): void {
    if (this.worker !== worker) return; // already handled, or ended by stop()
    this.worker = null;
    worker.kill('SIGKILL');
    this.reportAllLost(`executor worker crashed: ${reason}`);
  }

  private reportAllLost(error: string): void {
    const lost = [...this.running];
    this.running.clear();
    this.unstarted.clear();
    for (const [runId, pid] of lost) {
      this.forgetTimeout(runId);
      // Children outlive the worker that spawned them; end them so a retry cannot overlap the original.
      if (pid !== null) signalProcessGroup(pid, 'SIGKILL');
      const outcome: RunOutcome = {
        state: 'lost',
        finishedAt: this.clock.now(),
        exitCode: null,
        signal: null,
        error,
        stdoutTail: '',
        stderrTail: '',
      };
      this.signals.emit('finished', runId, outcome);
    }
    this.signals.notifyIfIdle(this.running.size === 0);
  }
}

/** Closes the spawner's channel, which ends it; kills it if it has not ended soon after. */
async function endWorker(worker: ChildProcess, clock: Clock): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  if (worker.connected) worker.disconnect();
  const cancelKill = clock.setTimer(WORKER_EXIT_WAIT_MS, () => worker.kill('SIGKILL'));
  await exited;
  cancelKill();
}

function ignore(): void {}
