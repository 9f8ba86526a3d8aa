import { SchedError } from '../errors.js';

/**
 * The shortest dependency cycle through `changed.job` once its upstream list becomes `changed.upstream`, as a
 * path that starts and ends with it and follows "runs after" edges: ['a', 'b', 'c', 'a'] means a runs after b,
 * b after c, c after a. Null when the change makes no cycle. `edges` maps each job to its upstream jobs (names or
 * ids, as long as they are used consistently). The stored graph was kept acyclic, so any new cycle passes through
 * the changed job; a cycle elsewhere in `edges` is not reported.
 */
export function findCycle(
  edges: ReadonlyMap<string, readonly string[]>,
  changed: { job: string; upstream: readonly string[] },
): string[] | null {
  const upstreamOf = (job: string): readonly string[] =>
    job === changed.job ? changed.upstream : (edges.get(job) ?? []);
  // Breadth-first from the changed job, so the cycle reported is a shortest one.
  const cameFrom = new Map<string, string>();
  let frontier = [changed.job];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const job of frontier) {
      for (const upstream of upstreamOf(job)) {
        if (upstream === changed.job) return pathBack(cameFrom, job, changed.job);
        if (cameFrom.has(upstream)) continue;
        cameFrom.set(upstream, job);
        next.push(upstream);
      }
    }
    frontier = next;
  }
  return null;
}

function pathBack(cameFrom: ReadonlyMap<string, string>, last: string, start: string): string[] {
  const path = [last];
  for (let job = last; job !== start;) {
    job = cameFrom.get(job) ?? start;
    path.push(job);
  }
  return [...path.reverse(), start];
}

/** `a runs after b, b runs after c, and c runs after a`. */
export function describeCycle(cycle: readonly string[]): string {
  if (cycle.length === 2) return `${cycle[0]} runs after itself`;
  const links = cycle.slice(0, -1).map((job, index) => `${job} runs after ${cycle[index + 1]}`);
  return links.length === 1 ? (links[0] ?? '') : `${links.slice(0, -1).join(', ')} and ${links.at(-1)}`;
}

/** The user error for `sched add`/`update` when the dependencies would form a cycle. */
export function cycleError(cycle: readonly string[]): SchedError {
  return new SchedError('VALIDATION_FAILED', `These dependencies form a cycle: ${cycle.join(' -> ')}.`, {
    hint: `Here ${describeCycle(cycle)}, so none of them could ever start. Remove one of the --after links.`,
    details: { cycle: [...cycle] },
  });
}
