import type { Job } from '../../core/job.js';
import type { RunSummary } from '../../core/run.js';
import type { SortMode } from './types.js';

export type JobComparator = (a: Job, b: Job) => number;

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byName: JobComparator = (a, b) => byText(a.name, b.name) || byText(a.id, b.id);

/** How much attention a job asks for in the `problems` order: failures first, then what runs now. */
function urgency(job: Job, latest: RunSummary | undefined): number {
  if (latest && ['failed', 'timed_out', 'lost'].includes(latest.state)) return 0;
  if (latest?.state === 'running') return 1;
  if (job.state === 'paused') return 2;
  return 3;
}

/** Ties are broken by name, then id, so an order is the same on every screen and every refresh. */
export function comparatorFor(
  mode: SortMode,
  history: ReadonlyMap<string, readonly RunSummary[]>,
): JobComparator {
  switch (mode) {
    case 'name':
      return byName;
    case 'next':
      return (a, b) => (a.nextRunAt ?? Infinity) - (b.nextRunAt ?? Infinity) || byName(a, b);
    case 'problems':
      return (a, b) =>
        urgency(a, history.get(a.id)?.[0]) - urgency(b, history.get(b.id)?.[0]) || byName(a, b);
  }
}

export function sortedIds(jobs: ReadonlyMap<string, Job>, compare: JobComparator): string[] {
  return [...jobs.values()].sort(compare).map((job) => job.id);
}

/**
 * Puts a new job where the order would have it, by binary search. The order may have drifted from the
 * comparator since it was computed (next runs move on); the search still lands at a sensible place.
 */
export function insertId(
  order: string[],
  job: Job,
  jobs: ReadonlyMap<string, Job>,
  compare: JobComparator,
): void {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const other = jobs.get(order[middle]!);
    if (other && compare(other, job) <= 0) low = middle + 1;
    else high = middle;
  }
  order.splice(low, 0, job.id);
}

/** A filter matches a job's name, or one of its labels written `key=value`, ignoring case. */
export function matchesFilter(job: Job, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  if (needle === '') return true;
  if (job.name.toLowerCase().includes(needle)) return true;
  for (const [key, value] of Object.entries(job.labels)) {
    if (`${key}=${value}`.toLowerCase().includes(needle)) return true;
  }
  return false;
}
