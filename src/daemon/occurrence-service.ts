import { SchedError } from '../core/errors.js';
import type { LedgerEntry } from '../core/ledger/entry.js';
import { mergeLedger } from '../core/ledger/merge.js';
import { passedOccurrenceRecord } from '../core/ledger/reasons.js';
import { instantCursor } from '../core/page-cursor.js';
import { explainWhy } from '../core/ledger/why.js';
import type { Run, RunSummary } from '../core/run.js';
import { occurrencesBetween } from '../core/schedule/occurrences.js';
import type { BackfillInstant, BackfillResult, Page, ParsedParams, WhyAnswer } from '../ipc/protocol.js';
import type { NewOccurrence, NewRun, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEvents } from './events.js';
import type { JobLookup } from './job-lookup.js';
import type { RunRouting } from './run-routing.js';
import type { Actor } from './access/request-caller.js';

export interface OccurrenceServiceDeps {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  lookup: JobLookup;
  routing: RunRouting;
  newId: () => string;
  node: string;
  fence: () => number;
}

// A retried instant has at most 101 attempts (100 retries); a page of runs this much longer than asked for
// always holds every attempt of the instants it returns.
const MAX_ATTEMPTS = 101;
/** How many recorded instants on each side of `--at` are enough to name the nearest ones. */
const NEIGHBOURS = 3;
/**
 * The most entries one instant has: one a node for an every-host instant (a peer cluster has at most 1,000
 * members), beside a skipped wall time's and a run's.
 */
const ENTRIES_PER_INSTANT = 1_010;

/** The occurrence ledger's use cases: `sched why`, `sched history --all-occurrences` and `sched backfill`. */
export class OccurrenceService {
  constructor(private readonly deps: OccurrenceServiceDeps) {}

  async why({ ref, at }: ParsedParams<'job.why'>): Promise<WhyAnswer> {
    const job = await this.deps.lookup.find(ref);
    const now = this.deps.clock.now();
    const entries =
      at === undefined
        ? await this.slice(job.id, { order: 'desc' }, NEIGHBOURS)
        : [
            ...(await this.slice(job.id, { to: at, order: 'desc' }, NEIGHBOURS)),
            ...(await this.slice(job.id, { from: at + 1, order: 'asc' }, NEIGHBOURS)),
          ];
    const chosen = chosenEntry(entries, at ?? null);
    // The neighbours may hold only some of the nodes' entries of the instant explained: it is read whole.
    const told =
      chosen === null
        ? entries
        : [
            ...entries.filter((entry) => entry.scheduledFor !== chosen.scheduledFor),
            ...(await this.instant(job.id, chosen.scheduledFor)),
          ];
    const runs = await this.runsOf(told);
    const sentence = explainWhy(told, at ?? null, job.timezone, now, { runs });
    const ofInstant = told.filter((entry) => entry.scheduledFor === chosen?.scheduledFor);
    return { job, sentence, entry: ofInstant[0] ?? null, entries: ofInstant };
  }

  /**
   * A page of the ledger, newest first. The cursor is an instant: a page ends between instants, so an
   * instant's entries (one a node for an every-host instant) are never split across pages; a page that one
   * instant would overfill holds that instant whole.
   */
  async list({ ref, limit, cursor }: ParsedParams<'job.occurrences'>): Promise<Page<LedgerEntry>> {
    const lastShown = instantCursor(cursor);
    const job = await this.deps.lookup.find(ref);
    const before = lastShown === undefined ? undefined : lastShown - 1;
    const items = await this.slice(job.id, { to: before, order: 'desc' }, limit + 1);
    if (items.length <= limit) return { items, nextCursor: null };
    const cut = items[limit]!.scheduledFor;
    const whole = items.slice(0, limit).filter((entry) => entry.scheduledFor !== cut);
    if (whole.length > 0) return { items: whole, nextCursor: String(whole.at(-1)!.scheduledFor) };
    const instant = await this.instant(job.id, cut);
    const older = await this.slice(job.id, { to: cut - 1, order: 'desc' }, 1);
    return { items: instant, nextCursor: older.length > 0 ? String(cut) : null };
  }

  async backfill(params: ParsedParams<'job.backfill'>, actor: Actor): Promise<BackfillResult> {
    const { ref, from, to, dryRun, max } = params;
    const { store, clock, lookup } = this.deps;
    const job = await lookup.findLive(ref, 'be backfilled');
    const now = clock.now();
    checkRange(job.name, from, to, now);
    if (job.schedule.kind === 'none') {
      throw new SchedError(
        'VALIDATION_FAILED',
        `Job ${job.name} has no schedule, so it has no instants to backfill.`,
        {
          hint: 'Run it once with `sched trigger JOB`.',
        },
      );
    }
    const listed = occurrencesBetween(job.schedule, from - 1, to, job.timezone, job.policy.dst, max);
    if (listed.truncated) {
      throw new SchedError(
        'VALIDATION_FAILED',
        `The range holds more than ${max.toLocaleString('en-US')} instants of ${job.name}; sched backfill refuses it.`,
        {
          hint: `Narrow --from/--to, or raise the limit with --max (e.g. --max ${max * 10}).`,
          details: { max },
        },
      );
    }
    const taken = new Set(
      (
        await store.listRunsByInstant({
          jobId: job.id,
          from,
          to,
          order: 'asc',
          limit: listed.items.length * MAX_ATTEMPTS + 1,
        })
      ).map((run) => run.scheduledFor),
    );
    const passedOver: NewOccurrence[] = [];
    const instants: BackfillInstant[] = listed.items.map((item) => {
      const passed = passedOccurrenceRecord(item, job.policy.dst, job.timezone);
      if (passed !== null) {
        passedOver.push({
          jobId: job.id,
          scheduledFor: item.at,
          wall: passed.outcome === 'dst-skipped' ? item.wall : null,
          outcome: passed.outcome,
          reason: passed.reason,
          node: this.deps.node,
          decidedAt: now,
        });
      }
      const action = passed?.outcome ?? (taken.has(item.at) ? 'exists' : 'run');
      return { scheduledFor: item.at, wall: item.wall, note: item.note, action, runId: null };
    });
    const order = job.policy.concurrency === 'allow' ? 'parallel' : 'serial';
    const result: BackfillResult = { job, dryRun, from, to, instants, created: 0, order };
    if (dryRun) return result;
    const node = this.deps.routing.nodeFor(job);
    await store.recordOccurrences(passedOver);
    const created: Run[] = [];
    for (const instant of instants) {
      if (instant.action !== 'run') continue;
      try {
        const run = await store.insertRun(this.backfillRun(job.id, instant.scheduledFor, now, node));
        instant.runId = run.id;
        created.push(run);
      } catch (error) {
        // Fired meanwhile (by the scheduler or another backfill): the instant has its run.
        if (!(error instanceof SchedError && error.details['attempt'] !== undefined)) throw error;
        instant.action = 'exists';
      }
    }
    await store.appendAudit({
      id: this.deps.newId(),
      at: now,
      actor: actor.audited,
      action: 'job.backfill',
      jobId: job.id,
      before: null,
      after: { from, to, created: created.length, order },
    });
    for (const run of created) {
      this.deps.events.emit('run:fired', run);
      this.deps.routing.dispatch(run, job);
    }
    return { ...result, created: created.length };
  }

  /** Up to `count` ledger entries of a job from one side of a point, merged from records and runs. */
  private async slice(
    jobId: string,
    range: { from?: number; to?: number; order: 'asc' | 'desc' },
    count: number,
  ): Promise<LedgerEntry[]> {
    const { store } = this.deps;
    const query = { jobId, ...range };
    const records = await store.listOccurrences({ ...query, limit: count });
    const runLimit = count * 3 + MAX_ATTEMPTS;
    const runs = await store.listRunsByInstant({ ...query, limit: runLimit });
    let merged = mergeLedger(records, runs, range.order);
    if (runs.length === runLimit) {
      // The farthest instant of a full page of runs may be missing attempts: leave it for the next page.
      const edge = runs.at(-1)!.scheduledFor;
      const complete = merged.filter((entry) => entry.scheduledFor !== edge);
      if (complete.length > 0) merged = complete;
    }
    return merged.slice(0, count);
  }

  /** Every entry of one instant, in the order a page lists them. */
  private async instant(jobId: string, scheduledFor: number): Promise<LedgerEntry[]> {
    return this.slice(jobId, { from: scheduledFor, to: scheduledFor, order: 'desc' }, ENTRIES_PER_INSTANT);
  }

  private async runsOf(entries: readonly LedgerEntry[]): Promise<RunSummary[]> {
    const runs: RunSummary[] = [];
    for (const entry of entries) {
      if (entry.runIds.length === 0) continue;
      runs.push(
        ...(await this.deps.store.listRunsByInstant({
          jobId: entry.jobId,
          from: entry.scheduledFor,
          to: entry.scheduledFor,
          order: 'asc',
          limit: MAX_ATTEMPTS,
        })),
      );
    }
    return runs;
  }

  private backfillRun(jobId: string, scheduledFor: number, now: number, node: string): NewRun {
    return {
      id: this.deps.newId(),
      jobId,
      scheduledFor,
      attempt: 1,
      trigger: 'backfill',
      node,
      fence: this.deps.fence(),
      now,
      state: 'scheduled',
      dueAt: now,
    };
  }
}

function checkRange(name: string, from: number, to: number, now: number): void {
  if (from > to) {
    throw new SchedError('VALIDATION_FAILED', `--from ${iso(from)} is after --to ${iso(to)}.`, {
      hint: 'Give the earlier time as --from.',
    });
  }
  if (to > now) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `--to ${iso(to)} is in the future; backfill only runs instants that have passed.`,
      {
        hint: `The scheduler runs ${name}'s future instants itself; end the range at or before now.`,
      },
    );
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The entry `explainWhy` talks about: the latest, or the nearest to `at` within a minute. */
function chosenEntry(entries: readonly LedgerEntry[], at: number | null): LedgerEntry | null {
  if (entries.length === 0) return null;
  if (at === null) return [...entries].sort((a, b) => b.scheduledFor - a.scheduledFor)[0] ?? null;
  const nearest = entries.reduce((best, entry) =>
    Math.abs(entry.scheduledFor - at) < Math.abs(best.scheduledFor - at) ? entry : best,
  );
  return Math.abs(nearest.scheduledFor - at) <= 60_000 ? nearest : null;
}
