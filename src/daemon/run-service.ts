import { SchedError } from '../core/errors.js';
import { checkIdCursor } from '../core/page-cursor.js';
import type { Run, RunSummary } from '../core/run.js';
import type { Page, ParsedParams } from '../ipc/protocol.js';
import type { NewRun, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEvents } from './events.js';
import type { IdempotencyGuard } from './idempotency-guard.js';
import type { JobLookup } from './job-lookup.js';
import type { RunGate } from './run-gate.js';
import type { RunLauncher } from './run-launcher.js';

export interface RunServiceDeps {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  launcher: RunLauncher;
  gate: RunGate;
  lookup: JobLookup;
  idempotency: IdempotencyGuard;
  newId: () => string;
  actor: string;
  node: string;
  /** The fencing token stamped on the runs it creates. */
  runFence: () => number;
  /** Resolves with the run once its end is recorded, or null after `timeoutMs`. */
  finishedRun: (runId: string, timeoutMs: number) => Promise<Run | null>;
}

/** What each request does to runs: trigger, kill, retry and the history. */
export class RunService {
  constructor(private readonly deps: RunServiceDeps) {}

  trigger({ ref, idempotencyKey }: ParsedParams<'job.trigger'>): Promise<Run> {
    return this.deps.idempotency.run('job.trigger', idempotencyKey, { ref }, async (claim) => {
      const job = await this.deps.lookup.findLive(ref, 'be triggered');
      const now = this.deps.clock.now();
      // Past the daemon-wide limit it waits, as `scheduled`, for a slot.
      const reserved = this.deps.gate.reserve();
      const starting = this.startingRun(job.id, now, now, 1, 'manual');
      let run: Run;
      try {
        run = await this.deps.store.insertRun(
          reserved ? starting : { ...starting, state: 'scheduled' },
          claim,
        );
      } catch (error) {
        if (reserved) this.deps.gate.release();
        throw error;
      }
      this.deps.events.emit('run:fired', run);
      if (reserved) this.deps.gate.launchReserved(run, job);
      else this.deps.gate.hold(run, job);
      return run;
    });
  }

  async list(params: ParsedParams<'run.list'>): Promise<Page<RunSummary>> {
    const { jobRef, ...query } = params;
    const cursor = checkIdCursor(query.cursor);
    const jobId = jobRef === undefined ? undefined : (await this.deps.lookup.find(jobRef)).id;
    return this.deps.store.listRuns({ ...query, cursor, jobId });
  }

  async get({ id }: ParsedParams<'run.get'>): Promise<Run> {
    const run = await this.deps.store.findRun(id);
    if (!run) {
      throw new SchedError('RUN_NOT_FOUND', `No run with id ${id}.`, {
        hint: 'List runs with `sched history [JOB]`.',
        details: { id },
      });
    }
    return run;
  }

  async kill({ id }: ParsedParams<'run.kill'>): Promise<Run> {
    const run = await this.get({ id });
    const reason = `killed by ${this.deps.actor} with sched kill`;
    if (run.state !== 'running' || !this.deps.launcher.kill(run.id, reason)) {
      throw new SchedError(
        'INVALID_STATE',
        `Run ${run.id} is ${run.state}, not running; there is nothing to kill.`,
        {
          hint: 'See what is running with `sched history --status running`.',
          details: { runId: run.id, state: run.state },
        },
      );
    }
    await this.audit(
      'run.kill',
      run.jobId,
      { runId: run.id, state: run.state },
      { runId: run.id, state: 'cancelled' },
    );
    return (await this.deps.finishedRun(run.id, 30_000)) ?? run;
  }

  /** Redrives a run that ended without success: a new attempt of the same instant, now. */
  async retry({ id }: ParsedParams<'run.retry'>): Promise<Run> {
    const failed = await this.get({ id });
    if (failed.state === 'succeeded' || failed.state === 'running' || failed.state === 'scheduled') {
      throw new SchedError(
        'INVALID_STATE',
        `Run ${failed.id} is ${failed.state}; only a run that ended without success can be retried.`,
        {
          hint: 'Find dead runs with `sched history --status failed`, or run the job again with `sched trigger JOB`.',
          details: { runId: failed.id, state: failed.state },
        },
      );
    }
    const job = await this.deps.lookup.findLive(failed.jobId, 'be retried');
    const now = this.deps.clock.now();
    const next = {
      ...this.startingRun(job.id, failed.scheduledFor, now, failed.attempt + 1, 'retry'),
      host: failed.host ?? '',
    };
    const run = await this.deps.store.retryRun(failed.id, next);
    await this.audit(
      'run.retry',
      job.id,
      { runId: failed.id, state: failed.state },
      { runId: run.id, attempt: run.attempt },
    );
    this.deps.events.emit('run:fired', run);
    this.deps.gate.launchNow(run, job);
    return run;
  }

  /** A run the daemon starts at once: it is `running` in the store before its process exists. */
  private startingRun(
    jobId: string,
    scheduledFor: number,
    now: number,
    attempt: number,
    trigger: Run['trigger'],
  ): NewRun {
    const { node } = this.deps;
    const fence = this.deps.runFence();
    return {
      id: this.deps.newId(),
      jobId,
      scheduledFor,
      attempt,
      trigger,
      node,
      fence,
      now,
      state: 'running',
      dueAt: now,
    };
  }

  private audit(action: string, jobId: string, before: unknown, after: unknown): Promise<void> {
    const at = this.deps.clock.now();
    return this.deps.store.appendAudit({
      id: this.deps.newId(),
      at,
      actor: this.deps.actor,
      action,
      jobId,
      before,
      after,
    });
  }
}
