import { SchedError } from '../core/errors.js';
import type { Job } from '../core/job.js';
import { checkTimeRange } from '../core/time-bound.js';
import type { Run, RunState, RunSummary } from '../core/run.js';
import type { ParsedParams, RedriveResult } from '../ipc/protocol.js';
import type { Store } from '../store/store.js';
import type { Actor } from './access/request-caller.js';
import type { JobLookup } from './job-lookup.js';
import type { RunRouting } from './run-routing.js';

export interface DeadRunRedriveDeps {
  store: Store;
  lookup: JobLookup;
  routing: RunRouting;
  /** Adds the next attempt of a run that ended without success, `scheduled` to wait for a slot, for `actor`. */
  addAttempt: (failed: RunSummary, job: Job, actor: Actor) => Promise<Run>;
}

/** The ends a retry policy retries; a cancelled run was ended on purpose and is not redriven. */
const DEAD_STATES: RunState[] = ['failed', 'timed_out', 'lost'];
/** At most this many dead runs get a new attempt per request; running it again takes the next ones. */
const MAX_REDRIVEN = 1_000;
const PAGE_SIZE = 500;
const MAX_PAGES = 40;

/**
 * `sched retry --job J --since T`: a new attempt for every dead run of the job in the range. A run that an
 * attempt already follows is skipped, so redriving twice adds nothing the second time; the new attempts wait
 * for slots under `--max-concurrent` like any waiting run, rather than all starting at once.
 */
export class DeadRunRedrive {
  constructor(private readonly deps: DeadRunRedriveDeps) {}

  async redrive(
    { jobRef, since, until, dryRun }: ParsedParams<'run.redrive'>,
    actor: Actor,
  ): Promise<RedriveResult> {
    checkTimeRange(since, until);
    const { lookup } = this.deps;
    const job = dryRun ? await lookup.find(jobRef) : await lookup.findLive(jobRef, 'be redriven');
    const { dead, skipped, more } = await this.deadRunsOf(job.id, since, until);
    const result: RedriveResult = {
      job: { id: job.id, name: job.name },
      dryRun,
      since,
      until: until ?? null,
      redriven: [],
      skipped,
      more,
    };
    for (const run of dead) {
      if (dryRun) {
        result.redriven.push({ dead: run, retry: null });
        continue;
      }
      const retry = await this.addAttempt(run, job, actor);
      if (retry === null) continue;
      result.redriven.push({ dead: run, retry });
      this.deps.routing.dispatch(retry, job);
    }
    return result;
  }

  /** Oldest first, so the runs start in the order they first failed. */
  private async deadRunsOf(
    jobId: string,
    since: number,
    until: number | undefined,
  ): Promise<{ dead: RunSummary[]; skipped: RedriveResult['skipped']; more: boolean }> {
    const dead: RunSummary[] = [];
    const skipped: RedriveResult['skipped'] = [];
    let cursor: string | undefined;
    let listedAll = false;
    for (let page = 0; page < MAX_PAGES && !listedAll; page += 1) {
      const query = { jobId, states: DEAD_STATES, since, until, limit: PAGE_SIZE, cursor };
      const { items, nextCursor } = await this.deps.store.listRuns(query);
      for (const run of items) {
        if (run.retriedBy !== null) skipped.push({ run, retriedBy: run.retriedBy });
        else dead.push(run);
      }
      listedAll = nextCursor === null;
      cursor = nextCursor ?? undefined;
    }
    const more = dead.length > MAX_REDRIVEN || !listedAll;
    return { dead: dead.slice(-MAX_REDRIVEN).reverse(), skipped: skipped.reverse(), more };
  }

  /** Null when another request redrove the run meanwhile: the store refuses a second attempt after it. */
  private async addAttempt(run: RunSummary, job: Job, actor: Actor): Promise<Run | null> {
    try {
      return await this.deps.addAttempt(run, job, actor);
    } catch (error) {
      if (error instanceof SchedError && error.code === 'INVALID_STATE') return null;
      throw error;
    }
  }
}
