import { SchedError } from '../core/errors.js';
import { checkIdCursor } from '../core/page-cursor.js';
import { checkTimeRange } from '../core/time-bound.js';
import type { Job } from '../core/job.js';
import type { Run, RunSummary } from '../core/run.js';
import type { Page, ParsedParams, RedriveResult } from '../ipc/protocol.js';
import type { IdempotencyClaim, NewRun, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { DeadRunRedrive } from './dead-run-redrive.js';
import type { DaemonEvents } from './events.js';
import type { IdempotencyGuard } from './idempotency-guard.js';
import type { JobLookup } from './job-lookup.js';
import type { LiveOutput } from './live-output.js';
import { tailFromBatches } from './relayed-output.js';
import type { RunGate } from './run-gate.js';
import type { RunLauncher } from './run-launcher.js';
import type { RunRouting } from './run-routing.js';
import type { WaitingRuns } from './scheduler/waiting-runs.js';
import { WaitingRunActions } from './waiting-run-actions.js';
import type { Actor } from './access/request-caller.js';

export interface RunServiceDeps {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  launcher: RunLauncher;
  gate: RunGate;
  routing: RunRouting;
  waitingRuns: WaitingRuns;
  lookup: JobLookup;
  idempotency: IdempotencyGuard;
  newId: () => string;
  node: string;
  /** The fencing token stamped on the runs it creates. */
  runFence: () => number;
  liveOutput: LiveOutput;
  /** Resolves with the run once its end is recorded here, or null after `timeoutMs`. */
  finishedRun: (runId: string, timeoutMs: number) => Promise<Run | null>;
  /** Resolves with the run once its end is in the store, wherever it ran, or null after `timeoutMs`. */
  endedRun: (runId: string, timeoutMs: number) => Promise<Run | null>;
}

/** Fewer characters would match runs by the minute they were made in, not by who they are. */
const MIN_RUN_ID_PREFIX = 4;
const CANDIDATES_SHOWN = 10;

/** What each request does to runs: trigger, kill, retry and the history. */
export class RunService {
  private readonly waiting: WaitingRunActions;
  private readonly redriver: DeadRunRedrive;

  constructor(private readonly deps: RunServiceDeps) {
    this.waiting = new WaitingRunActions(deps);
    this.redriver = new DeadRunRedrive({
      ...deps,
      addAttempt: (failed, job, actor) =>
        this.addAttempt(failed, job, 'scheduled', deps.routing.retryNode(failed, job), actor),
    });
  }

  trigger({ ref, idempotencyKey }: ParsedParams<'job.trigger'>, actor: Actor): Promise<Run> {
    return this.deps.idempotency.run('job.trigger', idempotencyKey, { ref }, async (claim) => {
      const job = await this.deps.lookup.findLive(ref, 'be triggered');
      const now = this.deps.clock.now();
      const [first, ...others] = this.deps.routing.triggerNodes(job);
      const run = await this.triggerOn(first!, job, now, claim);
      for (const node of others) await this.triggerOn(node, job, now);
      await this.audit(actor, 'job.trigger', job.id, null, { runId: run.id });
      return run;
    });
  }

  /** Makes the triggered run of `node`: started here at once, or stored waiting for the node it is for. */
  private async triggerOn(node: string, job: Job, now: number, claim?: IdempotencyClaim): Promise<Run> {
    const { gate, routing, store } = this.deps;
    // Past the daemon-wide limit it waits, as `scheduled`, for a slot; another node's run waits for it. Unless
    // the job allows overlap, it also waits while a run of the job runs anywhere (the store decides).
    const reserved = routing.isHere(node) && gate.reserve();
    const starting = {
      ...this.startingRun(job.id, now, now, 1, 'manual', node),
      host: routing.hostOf(job, node),
      alone: job.policy.concurrency !== 'allow',
    };
    let run: Run;
    try {
      run = await store.insertRun(reserved ? starting : { ...starting, state: 'scheduled' }, claim);
    } catch (error) {
      if (reserved) gate.release();
      throw error;
    }
    this.deps.events.emit('run:fired', run);
    if (run.state === 'running') gate.launchReserved(run, job);
    else {
      if (reserved) gate.release();
      routing.dispatch(run, job);
    }
    return run;
  }

  async list(params: ParsedParams<'run.list'>): Promise<Page<RunSummary>> {
    const { jobRef, ...query } = params;
    const cursor = checkIdCursor(query.cursor);
    checkTimeRange(query.since, query.until);
    const jobId = jobRef === undefined ? undefined : (await this.deps.lookup.find(jobRef)).id;
    return this.deps.store.listRuns({ ...query, cursor, jobId });
  }

  /** A running run comes with what it printed so far, numbered so a follower can go on from there. */
  async get({ id, orJob }: ParsedParams<'run.get'>): Promise<Run> {
    const run = await this.find(id, orJob);
    if (run.state !== 'running') return run;
    const live =
      this.deps.liveOutput.tailOf(run.id) ?? tailFromBatches(await this.deps.store.readRunOutput(run.id));
    if (live !== null) return { ...run, ...live };
    // Its tail is forgotten only once its end is stored: a run that has just ended reads as ended.
    const again = await this.deps.store.findRun(run.id);
    return again !== null && again.state !== 'running' ? again : { ...run, outputSeq: 0 };
  }

  /** A run by its id or, as git takes commits, any unique prefix of it; with `orJob`, a job's latest run. */
  async find(ref: string, orJob = false): Promise<Run> {
    const exact = await this.deps.store.findRun(ref);
    if (exact) return exact;
    if (orJob) {
      const job = await this.deps.store.findJob(ref, { includeCancelledNames: true });
      if (job) return this.latestRunOf(job.id, job.name);
    }
    const ids =
      ref.length >= MIN_RUN_ID_PREFIX
        ? await this.deps.store.findRunIdsByPrefix(ref.toLowerCase(), CANDIDATES_SHOWN + 1)
        : [];
    const only = ids.length === 1 ? await this.deps.store.findRun(ids[0]!) : null;
    if (only) return only;
    if (ids.length > 1) throw ambiguousRunId(ref, ids);
    throw new SchedError(
      'RUN_NOT_FOUND',
      orJob ? `No run or job matches "${ref}".` : `No run with id ${ref}.`,
      {
        hint: `Give a run id, or its first ${MIN_RUN_ID_PREFIX} or more characters${orJob ? ', or a job name' : ''}; \`sched history [JOB]\` lists runs.`,
        details: { id: ref },
      },
    );
  }

  private async latestRunOf(jobId: string, jobName: string): Promise<Run> {
    const [latest] = (await this.deps.store.listRuns({ jobId, limit: 1 })).items;
    const run = latest === undefined ? null : await this.deps.store.findRun(latest.id);
    if (run) return run;
    throw new SchedError('RUN_NOT_FOUND', `Job ${jobName} has no runs yet.`, {
      hint: `Run it now with \`sched trigger ${jobName}\`, or see when it runs with \`sched show ${jobName}\`.`,
      details: { jobId },
    });
  }

  /** Stops a running run, or cancels a waiting one before it starts; either is recorded as cancelled. */
  async kill({ id }: ParsedParams<'run.kill'>, actor: Actor): Promise<Run> {
    let run = await this.find(id);
    if (run.state === 'scheduled') {
      const reason = `cancelled by ${actor.user} with sched kill before it started`;
      const cancelled = await this.waiting.cancel(run, reason);
      if (cancelled !== null) {
        await this.auditKill(run, actor);
        return cancelled;
      }
      // It started (or ended) meanwhile: what to do is now what it has become.
      run = (await this.deps.store.findRun(run.id)) ?? run;
    }
    const reason = `killed by ${actor.user} with sched kill`;
    if (run.state === 'running' && !this.deps.routing.isHere(run.node))
      return this.killElsewhere(run, reason, actor);
    if (run.state !== 'running' || !this.deps.launcher.kill(run.id, reason)) {
      throw new SchedError(
        'INVALID_STATE',
        `Run ${run.id} is ${run.state}, neither running nor waiting to start; there is nothing to kill.`,
        {
          hint: 'See what is running or waiting with `sched history --status running --status scheduled`.',
          details: { runId: run.id, state: run.state },
        },
      );
    }
    await this.auditKill(run, actor);
    return (await this.deps.finishedRun(run.id, 30_000)) ?? run;
  }

  /** A run another node runs: that node is asked (through the store) and its end is waited for there. */
  private async killElsewhere(run: Run, reason: string, actor: Actor): Promise<Run> {
    await this.deps.store.relayKill(run.id, reason);
    await this.auditKill(run, actor);
    return (await this.deps.endedRun(run.id, 30_000)) ?? run;
  }

  private auditKill(run: Run, actor: Actor): Promise<void> {
    const before = { runId: run.id, state: run.state };
    return this.audit(actor, 'run.kill', run.jobId, before, { runId: run.id, state: 'cancelled' });
  }

  /**
   * Redrives a run that ended without success: a new attempt of the same instant, now. With `now`, starts a
   * run that waits instead, as the attempt it is.
   */
  async retry({ id, now }: ParsedParams<'run.retry'>, actor: Actor): Promise<Run> {
    const failed = await this.find(id);
    if (now) return this.startNow(failed, actor);
    if (failed.state === 'scheduled') {
      throw new SchedError(
        'INVALID_STATE',
        `Run ${failed.id} is waiting to start (attempt ${failed.attempt}); it has not ended, so there is nothing to retry.`,
        {
          hint: `Start it now with \`sched retry ${failed.id} --now\`, or cancel it with \`sched kill ${failed.id}\`.`,
          details: { runId: failed.id, state: failed.state },
        },
      );
    }
    if (failed.state === 'succeeded' || failed.state === 'running') {
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
    const node = this.deps.routing.retryNode(failed, job);
    if (!this.deps.routing.isHere(node)) return this.addAttempt(failed, job, 'scheduled', node, actor);
    const run = await this.addAttempt(failed, job, 'running', node, actor);
    this.deps.gate.launchNow(run, job);
    return run;
  }

  redrive(params: ParsedParams<'run.redrive'>, actor: Actor): Promise<RedriveResult> {
    return this.redriver.redrive(params, actor);
  }

  /** `sched retry RUN --now`: a waiting run starts at once; no attempt is spent on it. */
  private async startNow(waiting: Run, actor: Actor): Promise<Run> {
    if (waiting.state !== 'scheduled') {
      const ended = waiting.state !== 'running' && waiting.state !== 'succeeded';
      throw new SchedError(
        'INVALID_STATE',
        `Run ${waiting.id} is ${waiting.state}, not waiting to start; --now only starts a run that waits (a retry in its backoff, a queued instant).`,
        {
          hint: ended
            ? `Retry it as a new attempt without --now: \`sched retry ${waiting.id}\`.`
            : 'Waiting runs are listed by `sched history --status scheduled`.',
          details: { runId: waiting.id, state: waiting.state },
        },
      );
    }
    const job = await this.deps.lookup.findLive(waiting.jobId, 'start runs');
    const started = await this.waiting.startNow(waiting, job);
    if (started === null) {
      const current = (await this.deps.store.findRun(waiting.id))?.state ?? 'gone';
      throw new SchedError(
        'INVALID_STATE',
        `Run ${waiting.id} stopped waiting meanwhile; it is ${current}.`,
        {
          hint: `See it with \`sched logs ${waiting.id}\`.`,
          details: { runId: waiting.id, state: current },
        },
      );
    }
    const before = { runId: waiting.id, state: 'scheduled', dueAt: waiting.dueAt };
    await this.audit(actor, 'run.start-now', job.id, before, { runId: started.id, state: 'running' });
    return started;
  }

  /** The next attempt of a run that ended without success: `running` to start now, `scheduled` to wait for a slot. */
  private async addAttempt(
    failed: RunSummary,
    job: Job,
    state: 'running' | 'scheduled',
    node: string,
    actor: Actor,
  ): Promise<Run> {
    const now = this.deps.clock.now();
    const next = {
      ...this.startingRun(job.id, failed.scheduledFor, now, failed.attempt + 1, 'retry', node),
      state,
      host: failed.host ?? '',
    };
    const run = await this.deps.store.retryRun(failed.id, next);
    await this.audit(
      actor,
      'run.retry',
      job.id,
      { runId: failed.id, state: failed.state },
      { runId: run.id, attempt: run.attempt },
    );
    this.deps.events.emit('run:fired', run);
    return run;
  }

  /** A run the daemon starts at once: it is `running` in the store before its process exists. */
  private startingRun(
    jobId: string,
    scheduledFor: number,
    now: number,
    attempt: number,
    trigger: Run['trigger'],
    node = this.deps.node,
  ): NewRun {
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

  private audit(actor: Actor, action: string, jobId: string, before: unknown, after: unknown): Promise<void> {
    const at = this.deps.clock.now();
    return this.deps.store.appendAudit({
      id: this.deps.newId(),
      at,
      actor: actor.audited,
      action,
      jobId,
      before,
      after,
    });
  }
}

function ambiguousRunId(ref: string, ids: string[]): SchedError {
  const listed = ids.slice(0, CANDIDATES_SHOWN);
  const count = ids.length > CANDIDATES_SHOWN ? `More than ${CANDIDATES_SHOWN}` : String(ids.length);
  return new SchedError(
    'RUN_ID_AMBIGUOUS',
    `${count} runs have an id starting with ${ref}: ${listed.join(', ')}.`,
    {
      hint: 'Give more of the run id, enough to name one run.',
      details: { ref, candidates: listed },
    },
  );
}
