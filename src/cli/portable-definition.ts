import type { JobDefinition, JobInput } from '../core/job.js';
import { formatMisfire } from '../core/policy/misfire.js';

/**
 * What makes a job definition portable between hosts, for `sched export` and `sched import json`: a stored job
 * names the jobs it runs after by id, and ids are born anew on the other host, so a file names them by name.
 */

/** The definition with its upstream ids replaced by names; `unresolved` lists the ids `nameOf` does not know. */
export function withUpstreamNames(
  definition: JobDefinition,
  nameOf: (id: string) => string | undefined,
): { definition: JobDefinition; unresolved: string[] } {
  const unresolved: string[] = [];
  const name = (id: string): string => {
    const found = nameOf(id);
    if (found === undefined) unresolved.push(id);
    return found ?? id;
  };
  return {
    definition: {
      ...definition,
      after: definition.after.map((dependency) => ({ ...dependency, job: name(dependency.job) })),
      afterAll: definition.afterAll.map(name),
    },
    unresolved: [...new Set(unresolved)],
  };
}

/**
 * The definitions in an order the daemon can create them in: each after the ones in the list it runs after
 * (the daemon resolves an upstream's name when the job is added, so it must exist by then), otherwise as given.
 * A cycle (which the daemon never stores, so only a hand-edited file has one) keeps its given order, and the
 * daemon's refusal names it.
 */
export function orderByDependencies(definitions: readonly JobDefinition[]): JobDefinition[] {
  const inList = new Set(definitions.map((definition) => definition.name));
  const placed = new Set<string>();
  const ordered: JobDefinition[] = [];
  let waiting = [...definitions];
  while (waiting.length > 0) {
    const ready = waiting.find((definition) =>
      upstreamNames(definition).every((upstream) => !inList.has(upstream) || placed.has(upstream)),
    );
    const next = ready ?? waiting[0]!;
    ordered.push(next);
    placed.add(next.name);
    waiting = waiting.filter((definition) => definition !== next);
  }
  return ordered;
}

function upstreamNames(definition: JobDefinition): string[] {
  return [...definition.after.map((dependency) => dependency.job), ...definition.afterAll];
}

/**
 * The JobInput fields that re-create a definition's time policy and dependencies, written (like
 * definitionToInput's) so that normalizing them gives back the same values: durations in exact milliseconds,
 * each dependency with its outcome spelt out (a job name may itself contain ":").
 */
export function timePolicyInput(definition: JobDefinition): Partial<JobInput> {
  const { policy } = definition;
  const input: Partial<JobInput> = {
    concurrency: policy.concurrency,
    misfire: formatMisfire(policy.misfire.policy),
    catchupWindow: `${policy.misfire.catchupWindowMs}ms`,
    dstGap: policy.dst.gap,
    dstRepeat: policy.dst.repeat,
  };
  if (policy.misfire.skipIfNextWithinMs !== null)
    input.skipIfNextWithin = `${policy.misfire.skipIfNextWithinMs}ms`;
  if (policy.spreadMs !== null) input.spread = `${policy.spreadMs}ms`;
  if (policy.jitterMs !== null) input.fireJitter = `${policy.jitterMs}ms`;
  if (definition.after.length > 0) input.after = definition.after.map(({ job, on }) => `${job}:${on}`);
  // `--after-all` text is read like `--after`, so a name whose last part looks like an outcome keeps it.
  if (definition.afterAll.length > 0)
    input.afterAll = definition.afterAll.map((name) => (name.includes(':') ? `${name}:success` : name));
  return input;
}

/** The JobInput fields that re-create a definition's notifications and dead-man's switch. */
export function alertsInput(definition: JobDefinition): Partial<JobInput> {
  const alerts = definition.alerts;
  if (!alerts) return {};
  const input: Partial<JobInput> = {};
  if (alerts.notify.length > 0) input.notify = [...alerts.notify];
  if (alerts.notifyOn !== null) input.notifyOn = alerts.notifyOn.join(',');
  if (alerts.expectSuccessEveryMs !== null) input.expectSuccessEvery = `${alerts.expectSuccessEveryMs}ms`;
  return input;
}
