import { staleReadNotice } from '../../core/cluster/degraded-mode.js';
import { SchedError } from '../../core/errors.js';
import type { Job } from '../../core/job.js';
import { jobStatus } from '../../core/job-status.js';
import type { JobDetail, JobListPage, ParsedParams } from '../../ipc/protocol.js';
import type { Clock } from '../clock.js';
import { upcomingInstants } from '../job-service.js';
import type { LocalAutonomy } from './local-autonomy.js';

/**
 * `sched ls` and `sched show` while the store cannot be reached, answered from this node's local copy of
 * the job definitions it may run, each answer saying it may be stale. Runs and history are in the store
 * only, so `show` lists none.
 */
export class LocalReads {
  constructor(
    private readonly autonomy: LocalAutonomy,
    private readonly clock: Clock,
  ) {}

  list({ limit, cursor, states, labels }: ParsedParams<'job.list'>): JobListPage {
    const { jobs, refreshedAt } = this.autonomy.jobs();
    const wanted = new Set<string>(states ?? ['active', 'paused', 'done']);
    const matching = jobs.filter(
      (job) =>
        wanted.has(jobStatus(job)) &&
        (cursor === undefined || job.id > cursor) &&
        Object.entries(labels ?? {}).every(([key, value]) => job.labels[key] === value),
    );
    const items = matching.slice(0, limit);
    const nextCursor = matching.length > limit ? items.at(-1)!.id : null;
    return { items, nextCursor, stale: staleReadNotice(refreshedAt, this.clock.now()) };
  }

  get({ ref, upcoming }: ParsedParams<'job.get'>): JobDetail {
    const job: Job | null = this.autonomy.findJob(ref);
    const stale = staleReadNotice(this.autonomy.jobs().refreshedAt, this.clock.now());
    if (job === null) {
      throw new SchedError(
        'STORE_UNAVAILABLE',
        `No job "${ref}" in this node's local copy, and the store cannot be reached.`,
        {
          hint: 'The local copy holds only the jobs this node may run; try again once the store is back (`sched cluster status` says whether it is).',
          details: { ref },
        },
      );
    }
    return { job, upcoming: upcomingInstants(job, upcoming), recentRuns: [], breaker: null, stale };
  }
}
