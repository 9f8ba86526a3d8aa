import type { Clock } from '../core/clock.js';

/** How long a run that ended here is still known to have, after its end was written. */
const KEPT_AFTER_WRITTEN_MS = 10_000;

interface EndedRun {
  jobId: string | null;
  /** null while the end is being written, then when it was (monotonic ms). */
  writtenAt: number | null;
}

/**
 * The runs that ended on this node lately: from their end's arrival until KEPT_AFTER_WRITTEN_MS after the
 * end was written. A fire of their job counts them as over (see Fire.endedHere): one that read the job's
 * runs in flight before the end was stored still found the run running.
 */
export class EndedRuns {
  /** By run, in the order they ended (a run whose end was kept offline: from when its replay settled it). */
  private readonly runs = new Map<string, EndedRun>();
  /**
   * The runs whose ends are kept offline until the store is back (see LocalAutonomy), with their job. Apart,
   * so that one waiting through a long outage does not hold back forgetting every run that ended after it.
   */
  private readonly offline = new Map<string, string | null>();
  private readonly byJob = new Map<string, Set<string>>();

  constructor(private readonly clock: Pick<Clock, 'monotonic'>) {}

  /** The job's runs known to have ended here, oldest end first. */
  ofJob(jobId: string): string[] {
    const runs = this.byJob.get(jobId);
    return runs === undefined ? [] : [...runs];
  }

  /** Those of the job's runs whose ends are still being written. */
  unwrittenOfJob(jobId: string): string[] {
    const unwritten: string[] = [];
    for (const runId of this.byJob.get(jobId) ?? [])
      if (this.runs.get(runId)?.writtenAt === null || this.offline.has(runId)) unwritten.push(runId);
    return unwritten;
  }

  /** The run ended; null for a job this node no longer knows (it is then known by its id alone). */
  ended(runId: string, jobId: string | null): void {
    this.runs.set(runId, { jobId, writtenAt: null });
    if (jobId === null) return;
    const runs = this.byJob.get(jobId) ?? new Set<string>();
    runs.add(runId);
    this.byJob.set(jobId, runs);
  }

  /** The run's end could not be written and is kept offline: it stays unwritten until `offlineEndSettled`. */
  keptOffline(runId: string): void {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    this.runs.delete(runId);
    this.offline.set(runId, run.jobId);
  }

  /** The end kept offline has left the journal (see replayJournal): written from here on. */
  offlineEndSettled(runId: string): void {
    const jobId = this.offline.get(runId);
    if (jobId === undefined) return;
    this.offline.delete(runId);
    this.runs.set(runId, { jobId, writtenAt: null });
    this.written(runId);
  }

  /**
   * The write of the run's end is over (a run whose end was kept offline waits for `offlineEndSettled`); the runs
   * whose ends were written long enough ago are forgotten.
   */
  written(runId: string): void {
    const now = this.clock.monotonic();
    const run = this.runs.get(runId);
    if (run !== undefined) run.writtenAt = now;
    // In the order their ends were written, near enough: the order the runs ended (their ends are written a
    // batch at a time), an end kept offline last, once its replay settled it.
    for (const [id, { jobId, writtenAt }] of this.runs) {
      if (writtenAt === null || now - writtenAt < KEPT_AFTER_WRITTEN_MS) break;
      this.runs.delete(id);
      if (jobId !== null) this.forgetOfJob(jobId, id);
    }
  }

  private forgetOfJob(jobId: string, runId: string): void {
    const runs = this.byJob.get(jobId);
    runs?.delete(runId);
    if (runs?.size === 0) this.byJob.delete(jobId);
  }
}
