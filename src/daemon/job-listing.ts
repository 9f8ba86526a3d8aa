import type { Job } from '../core/job.js';
import { jobStatus, storedStateOf, type JobStatus } from '../core/job-status.js';
import type { Page, Store } from '../store/store.js';

const SCAN_PAGE = 500;

export interface JobListing {
  limit: number;
  cursor?: string;
  /** Default: live jobs (active, done and paused). */
  statuses?: JobStatus[];
  labels?: Record<string, string>;
  owner?: string;
}

/**
 * Lists jobs by status. The store knows stored states only, and a `done` job is stored as active; when a
 * listing tells the two apart, the store's pages are filtered here, page after page until this one is full
 * (one more than asked, to know whether another page exists, as the store does). Done jobs alone are read
 * among the active jobs with no next instant, which the store keeps apart.
 */
export async function listJobsByStatus(store: Store, listing: JobListing): Promise<Page<Job>> {
  const { statuses, ...query } = listing;
  const states = statuses === undefined ? undefined : [...new Set(statuses.map(storedStateOf))];
  if (statuses === undefined || statuses.includes('active') === statuses.includes('done'))
    return store.listJobs({ ...query, states });
  const wanted = new Set(statuses);
  const withoutNextRun = statuses.every((status) => status === 'done');
  const kept: Job[] = [];
  let cursor = query.cursor;
  // First what the page needs, as a listing of active jobs that are mostly not done; then larger pages.
  let limit = query.limit + 1;
  do {
    const page = await store.listJobs({ ...query, states, withoutNextRun, cursor, limit });
    kept.push(...page.items.filter((job) => wanted.has(jobStatus(job))));
    cursor = page.nextCursor ?? undefined;
    limit = SCAN_PAGE;
  } while (cursor !== undefined && kept.length <= query.limit);
  const items = kept.slice(0, query.limit);
  return { items, nextCursor: kept.length > query.limit ? items.at(-1)!.id : null };
}
