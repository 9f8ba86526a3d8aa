import { carriedEnvironment } from '../core/access/owner-environment.js';
import { runAsFor, type DaemonAccount } from '../core/access/run-as.js';
import type { Job } from '../core/job.js';
import { RETRYABLE_STATES, decideRetry } from '../core/retry/decision.js';
import { annotateError } from '../core/retry/failure-note.js';
import type { TargetKind } from '../core/retry/failure-class.js';
import type { Run, RunOutcome, RunSummary } from '../core/run.js';
import type { NewDelivery } from '../core/notify/delivery.js';
import type { FinishedRun, NewRun, RunEnd, RunStart, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { earlierAttempts } from './earlier-attempts.js';
import type { DaemonEvents } from './events.js';
import type { CommandExecutor } from './executor/command-executor.js';
import type { HttpExecutor } from './executor/http-executor.js';
import type { RunExecutor } from './executor/run-executor.js';
import type { LiveOutput } from './live-output.js';
import { EndedRuns } from './ended-runs.js';
import { GroupCommit } from './group-commit.js';
import { persistently } from './persistent-outcome.js';

/** The daemon's own environment, which every command job starts from. */
export function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

/** The variables every command job sees, so it can be idempotent and tell its runs apart. */
export function runEnvironment(run: Run, job: Job): Record<string, string> {
  return {
    SCHED_JOB_ID: job.id,
    SCHED_JOB_NAME: job.name,
    SCHED_RUN_ID: run.id,
    SCHED_ATTEMPT: String(run.attempt),
    SCHED_SCHEDULED_FOR: new Date(run.scheduledFor).toISOString(),
    SCHED_SCHEDULED_FOR_MS: String(run.scheduledFor),
    SCHED_FENCE: String(run.fence),
  };
}

/** The attempt whose end is being recorded; `startedAt` is null when it never started here. */
interface EndingAttempt {
  attempt: number;
  scheduledFor: number;
  /** The node the attempt ran on (another's, for a run recorded lost by the coordinator). */
  node?: string;
  host?: string;
  startedAt?: number | null;
}

/** A run found `running` whose process is gone. */
type LostRun = Pick<RunSummary, 'id' | 'attempt' | 'scheduledFor' | 'node' | 'host' | 'startedAt'>;

function targetKind(job: Job): TargetKind {
  if (job.target.kind === 'http') return 'http';
  return job.target.shell !== null ? 'shell' : 'argv';
}

export interface RunLauncherOptions {
  store: Store;
  commands: CommandExecutor;
  http: HttpExecutor;
  events: DaemonEvents;
  clock: Clock;
  newId: () => string;
  node: string;
  /** The fencing token stamped on the runs it creates (retries). */
  runFence: () => number;
  baseEnv: Record<string, string>;
  /** The daemon's user: a command job of another owner is started as them, or refused (see runAsFor). */
  daemonAccount: DaemonAccount;
  /** Where the output of running runs is kept until their end is stored. */
  liveOutput: LiveOutput;
  /** Where a retry that must wait goes. */
  waitForRetry: (run: Run) => void;
  /** The node an automatic retry of the job runs on, given the node of the attempt; this one when absent. */
  retryNode?: (job: Job, failedOn: string) => string;
  /** Variables a run gets beyond the standard ones (`SCHED_UPSTREAM_RUN` of a dependency's run). */
  extraEnvironment?: (run: Run) => Record<string, string>;
  /** Stores what the run printed that is not stored yet, before its end is (for followers on other nodes). */
  flushOutput?: (runId: string) => Promise<void>;
  /** The notifications a run's end causes, written in the transaction that records the end. */
  notices?: (job: Job, runId: string, outcome: RunOutcome, retrying: boolean) => Promise<NewDelivery[]>;
  random?: () => number;
  /**
   * Keeps the end of a run that could not be written because the store cannot be reached, to be written
   * once it is back (see LocalAutonomy); false when there is nowhere to keep it. Without it, the write is
   * retried until the store is back.
   */
  keepEndOffline?: (runId: string, jobId: string | null, outcome: RunOutcome) => boolean;
  /**
   * Why a run of `job` may not start here now (a peer whose lease on its runs ran out), or null: the run
   * is then recorded cancelled with that reason, never started.
   */
  refuseLaunch?: (job: Job) => string | null;
  /** Between two writes of run starts or ends that had company, at least this long (see GroupCommit); 0 by default. */
  writeGapMs?: number;
}

/**
 * Hands runs to the executor for their target and writes what becomes of them: a failed, timed-out or
 * lost attempt gets its retry (a new run row, in the same transaction) while the policy allows one.
 * Store writes are chained per run so a run's pid can never land after its end. However a run ends here
 * (recorded, reconciled with a lost record, never started, or its outcome unwritable), it leaves through
 * `release`, which emits `run:released` for whatever counts runs in flight.
 */
export class RunLauncher {
  /** The runs launched here and not yet released, with their job. */
  private readonly inFlight = new Map<string, Job>();
  /** The attempt of each run launched here and not yet released, as its end needs it (the retry's rule). */
  private readonly attempts = new Map<string, EndingAttempt>();
  /** When each run launched here without a process started: its start stored only its event (see RunStart). */
  private readonly startsWithoutPid = new Map<string, number>();
  private readonly starts: GroupCommit<RunStart, void>;
  private readonly ends: GroupCommit<RunEnd, FinishedRun | null>;
  private readonly writes = new Map<string, Promise<void>>();
  private readonly endedRuns: EndedRuns;
  private readonly executors: RunExecutor[];

  constructor(private readonly options: RunLauncherOptions) {
    this.endedRuns = new EndedRuns(options.clock);
    options.events.on('run:offline-end-settled', ({ runId }) => this.endedRuns.offlineEndSettled(runId));
    this.executors = [options.commands, options.http];
    const gap = options.writeGapMs ? { clock: options.clock, ms: options.writeGapMs } : undefined;
    this.starts = new GroupCommit(async (starts): Promise<void[]> => {
      await options.store.recordRunsStarted(starts);
      return [];
    }, gap);
    this.ends = new GroupCommit((ends) => options.store.finishRuns(ends), gap);
    for (const executor of this.executors) {
      executor.on('started', (runId, pid, startedAt) =>
        this.write(runId, async () => {
          const job = this.inFlight.get(runId);
          if (!job) {
            if (pid !== null) await options.store.setRunPid(runId, pid);
            return;
          }
          if (pid === null) this.startsWithoutPid.set(runId, startedAt);
          await this.starts.write({ runId, jobId: job.id, pid, at: startedAt });
          options.events.emit('run:started', { runId, jobId: job.id, pid, at: startedAt });
        }),
      );
      executor.on('finished', (runId, outcome) => this.settle(runId, outcome));
    }
    // Kept and numbered in the same turn as it is published, so a tail read later holds exactly the
    // chunks numbered up to its outputSeq.
    options.commands.on('output', (runId, stream, data, totalBytes) => {
      const seq = options.liveOutput.record(runId, stream, data, totalBytes);
      options.events.emit('run:output', { runId, stream, data, seq });
    });
  }

  /** Starts a run that is already `running` in the store; one that cannot be handed over is recorded failed. */
  launch(run: Run, job: Job): void {
    if (this.inFlight.has(run.id)) return;
    this.inFlight.set(run.id, job);
    // A run launched here is this node's in the store (a waiting run's claim made it so), whoever made it.
    const { attempt, scheduledFor, host, startedAt } = run;
    this.attempts.set(run.id, { attempt, scheduledFor, node: this.options.node, host, startedAt });
    const refusal = this.options.refuseLaunch?.(job) ?? null;
    if (refusal !== null) return this.settle(run.id, this.ended('cancelled', refusal));
    try {
      this.hand(run, job);
    } catch (error) {
      this.settle(run.id, this.ended('failed', `could not be started: ${(error as Error).message}`));
    }
  }

  /** The outcome of a run that never started here. */
  private ended(state: 'failed' | 'cancelled', error: string): RunOutcome {
    const finishedAt = this.options.clock.now();
    return { state, finishedAt, exitCode: null, signal: null, error, stdoutTail: '', stderrTail: '' };
  }

  private hand(run: Run, job: Job): void {
    const target = job.target;
    if (target.kind === 'http') {
      this.options.http.run({
        runId: run.id,
        fence: run.fence,
        target,
        body: job.payload === null ? null : JSON.stringify(job.payload),
        timeoutMs: job.timeoutMs,
      });
      return;
    }
    const runAs = runAsFor(job.owner, this.options.daemonAccount);
    if (runAs.as === 'refused') throw new Error(runAs.reason);
    const asOwner = runAs.as === 'owner';
    this.options.commands.run({
      runId: run.id,
      argv: target.argv,
      shell: target.shell,
      cwd: target.cwd,
      env: {
        ...(asOwner ? carriedEnvironment(this.options.baseEnv) : this.options.baseEnv),
        ...target.env,
        ...runEnvironment(run, job),
        ...this.options.extraEnvironment?.(run),
      },
      runAs: asOwner ? runAs.user : null,
      stdin: job.payload === null ? null : JSON.stringify(job.payload),
      timeoutMs: job.timeoutMs,
    });
  }

  /**
   * Records a run that never reached an executor (a crash left it running) and retries it per policy; when
   * it started counts for the retry deadline. A run whose end arrived meanwhile (a peer's copy of the log
   * applies the end it committed before its daemon was killed) keeps that end: nothing is written.
   */
  async recordLost(run: LostRun, job: Job, error: string): Promise<void> {
    const outcome: RunOutcome = {
      state: 'lost',
      finishedAt: this.options.clock.now(),
      exitCode: null,
      signal: null,
      error,
      stdoutTail: '',
      stderrTail: '',
    };
    // A node starting without its store (or a majority) keeps the end offline, as a run's own end is kept;
    // and a fire of the job names the run as over meanwhile, as it names a run that ended here.
    this.endedRuns.ended(run.id, job.id);
    try {
      await this.released(run.id, job.id, () =>
        persistently(
          () =>
            this.finishWith(run.id, job, outcome, run, async (end) => {
              const [finished] = await this.options.store.finishRuns([end]);
              return finished ?? null;
            }),
          this.options.events,
          this.options.clock,
          () => this.keepEndOffline(run.id, job.id, outcome),
        ),
      );
    } finally {
      this.endedRuns.written(run.id);
    }
  }

  /** Records a waiting run that will never start (its job was cancelled) as cancelled. */
  async recordCancelled(runId: string, job: Job, error: string): Promise<void> {
    const outcome: RunOutcome = {
      state: 'cancelled',
      finishedAt: this.options.clock.now(),
      exitCode: null,
      signal: null,
      error,
      stdoutTail: '',
      stderrTail: '',
    };
    await this.released(runId, job.id, async () => {
      const current = await this.options.store.findRun(runId);
      await this.finishWith(runId, job, outcome, current ?? { attempt: 1, scheduledFor: 0 });
    });
  }

  kill(runId: string, reason: string): boolean {
    return this.executors.some((executor) => executor.kill(runId, reason));
  }

  /** Kills the runs launched here whose job `picks`; resolves how many were asked to stop. */
  killWhere(picks: (job: Job) => boolean, reason: string): number {
    let killed = 0;
    for (const [runId, job] of this.inFlight) if (picks(job) && this.kill(runId, reason)) killed += 1;
    return killed;
  }

  runningCount(): number {
    return this.executors.reduce((count, executor) => count + executor.runningCount(), 0);
  }

  /** Kills what still runs, and resolves once every outcome is on disk. */
  async stop(killReason: string): Promise<void> {
    await Promise.all(this.executors.map((executor) => executor.stop({ killReason })));
    await this.settled();
  }

  async settled(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes.values()]);
  }

  /** The job's runs that ended here lately, oldest end first (see EndedRuns): a fire of it counts them as over. */
  endedRunsOf(jobId: string): string[] {
    return this.endedRuns.ofJob(jobId);
  }

  /**
   * The job's runs that ended here with their ends not written yet. Where a write is answered once it is
   * ordered before every later one (peer mode's log), a fire needs to name no other.
   */
  unwrittenEndsOf(jobId: string): string[] {
    return this.endedRuns.unwrittenOfJob(jobId);
  }

  /** An executor's outcome (or a failure to hand the run over): recorded, then the run is released. */
  private settle(runId: string, outcome: RunOutcome): void {
    const job = this.inFlight.get(runId);
    this.endedRuns.ended(runId, job?.id ?? null);
    const written = this.write(runId, () =>
      this.released(runId, job?.id ?? null, () =>
        persistently(
          () => this.finish(runId, job, outcome),
          this.options.events,
          this.options.clock,
          () => this.keepEndOffline(runId, job?.id ?? null, outcome),
        ).finally(() => this.options.liveOutput.forget(runId)),
      ),
    );
    void written.finally(() => this.endedRuns.written(runId));
  }

  /** Keeps the end offline when there is somewhere to; it then stays unwritten until its replay settles it. */
  private keepEndOffline(runId: string, jobId: string | null, outcome: RunOutcome): boolean {
    const kept = this.options.keepEndOffline?.(runId, jobId, outcome) ?? false;
    if (kept) this.endedRuns.keptOffline(runId);
    return kept;
  }

  /**
   * The runs whose ends a daemon before this one kept offline, still waiting for the store: a fire of their
   * job names them as over, as it names a run whose end this daemon kept, until the replay settles each.
   */
  adoptEndsKeptOffline(ends: readonly { runId: string; jobId: string | null }[]): void {
    for (const { runId, jobId } of ends) {
      this.endedRuns.ended(runId, jobId);
      this.endedRuns.keptOffline(runId);
    }
  }

  /** The job of a run launched here and not yet released. */
  jobIdOf(runId: string): string | undefined {
    return this.inFlight.get(runId)?.id;
  }

  /**
   * Its end is written with the attempt known from its launch: a run declared lost meanwhile (this node was
   * paused or cut off past its lease, and the coordinator recorded it lost and retried it) fails the end's
   * compare-and-set, and then its outcome is reported while the record stands.
   */
  private async finish(runId: string, job: Job | undefined, outcome: RunOutcome): Promise<void> {
    await this.options.flushOutput?.(runId);
    const attempt = this.attempts.get(runId) ?? (await this.options.store.findRun(runId));
    if (!attempt) return;
    await this.finishWith(runId, job, outcome, attempt, (end) => this.ends.write(end));
  }

  /**
   * The one way out for a run ending here: `record` writes its end, and whether that succeeds, finds the
   * run already ended elsewhere, or fails for good, the run stops counting as in flight.
   */
  private async released(runId: string, jobId: string | null, record: () => Promise<void>): Promise<void> {
    try {
      await record();
    } finally {
      this.inFlight.delete(runId);
      this.attempts.delete(runId);
      this.startsWithoutPid.delete(runId);
      this.options.events.emit('run:released', { runId, jobId });
    }
  }

  private async finishWith(
    runId: string,
    job: Job | undefined,
    outcome: RunOutcome,
    attemptOf: EndingAttempt,
    write: (end: RunEnd) => Promise<FinishedRun | null> = (end) => this.finishAlone(end),
  ): Promise<void> {
    const { retry, error } = job
      ? await this.retryFor(job, attemptOf, outcome)
      : { retry: undefined, error: outcome.error };
    const ended = { ...outcome, error };
    const deliveries = job ? await this.options.notices?.(job, runId, ended, retry !== undefined) : undefined;
    const startedAt = this.startsWithoutPid.get(runId);
    const finished = await write({ runId, outcome: ended, retry, deliveries, startedAt });
    if (finished === null) {
      const current = await this.options.store.findRun(runId);
      if (current) this.options.events.emit('run:reconciled', { run: current, outcome });
      return;
    }
    const { run, retry: retryRun } = finished;
    this.options.events.emit(outcome.state === 'lost' ? 'run:lost' : 'run:finished', run);
    if (retryRun) {
      this.options.events.emit('run:retry-scheduled', retryRun);
      this.options.waitForRetry(retryRun);
    } else {
      if (job && RETRYABLE_STATES.has(outcome.state)) this.options.events.emit('run:dead', run);
      this.options.events.emit('run:settled', run);
    }
  }

  /** One end on its own: a run that is not running any more is refused (INVALID_STATE), not reconciled. */
  private finishAlone({ runId, outcome, retry, deliveries }: RunEnd): Promise<FinishedRun> {
    return this.options.store.finishRun(runId, outcome, retry, deliveries);
  }

  /** The attempt that follows, if any, and the error to store (with why no attempt follows, when that matters). */
  private async retryFor(
    job: Job,
    failed: EndingAttempt,
    outcome: RunOutcome,
  ): Promise<{ retry: NewRun | undefined; error: string | null }> {
    if (!RETRYABLE_STATES.has(outcome.state) || job.retry.maxRetries === 0 || job.state === 'cancelled')
      return { retry: undefined, error: outcome.error };
    const host = failed.host ?? '';
    const earlier =
      failed.attempt > 1
        ? await earlierAttempts(this.options.store, { ...failed, jobId: job.id, host })
        : { firstStartedAt: null, breakerWaits: 0 };
    const now = this.options.clock.now();
    const decision = decideRetry(
      {
        attempt: failed.attempt,
        outcome,
        target: targetKind(job),
        firstStartedAt: earlier.firstStartedAt ?? failed.startedAt ?? null,
        breakerWaits: earlier.breakerWaits,
      },
      job.retry,
      now,
      this.options.random ?? Math.random,
    );
    const error = annotateError(outcome.error, decision, job.retry);
    if (!decision.retry) return { retry: undefined, error };
    return {
      retry: {
        id: this.options.newId(),
        jobId: job.id,
        scheduledFor: failed.scheduledFor,
        attempt: failed.attempt + 1,
        trigger: 'retry',
        node: this.options.retryNode?.(job, failed.node ?? this.options.node) ?? this.options.node,
        fence: this.options.runFence(),
        now,
        state: 'scheduled',
        dueAt: decision.dueAt,
        host,
      },
      error,
    };
  }

  /** Chains `step` after the run's writes asked for before; the chain's end, which never rejects. */
  private write(runId: string, step: () => Promise<void>): Promise<void> {
    const previous = this.writes.get(runId) ?? Promise.resolve();
    const pending: Promise<void> = previous
      .then(step)
      .catch((error: Error) => void this.options.events.emit('scheduler:error', { error }))
      .finally(() => {
        if (this.writes.get(runId) === pending) this.writes.delete(runId);
      });
    this.writes.set(runId, pending);
    return pending;
  }
}
