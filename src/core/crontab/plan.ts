/** What an import would do with each job it brings, judged against the jobs the daemon has. */
export interface ImportPlan<T extends { name: string }> {
  create: T[];
  /** Already there, the same: nothing to do. */
  unchanged: T[];
  /** A different job holds the name: left alone, and reported. */
  conflicts: { item: T; reason: string }[];
}

export interface ExistingJob {
  name: string;
}

/**
 * Splits the incoming jobs by what is there already. `same` says whether the job that holds a name is the
 * one this import would create; a job of that name that is not blocks the import of that one item.
 */
export function planImport<T extends { name: string }, E extends ExistingJob>(
  incoming: readonly T[],
  existing: readonly E[],
  same: (item: T, job: E) => boolean,
  describeDifference: (item: T, job: E) => string,
): ImportPlan<T> {
  const byName = new Map(existing.map((job) => [job.name, job]));
  const plan: ImportPlan<T> = { create: [], unchanged: [], conflicts: [] };
  for (const item of incoming) {
    const job = byName.get(item.name);
    if (job === undefined) plan.create.push(item);
    else if (same(item, job)) plan.unchanged.push(item);
    else plan.conflicts.push({ item, reason: describeDifference(item, job) });
  }
  return plan;
}
