import { cycleError, findCycle } from '../core/dependencies/cycle.js';
import { SchedError } from '../core/errors.js';
import type { JobDefinition } from '../core/job.js';
import type { Store } from '../store/store.js';

/**
 * Turns the jobs a definition runs after (names or ids, as typed) into ids of live jobs, and refuses a change
 * that would close a cycle, naming it. `selfId` is the job being changed (null for a new job, which nothing
 * can run after yet).
 */
export async function resolveDependencies(
  definition: JobDefinition,
  selfId: string | null,
  store: Store,
): Promise<JobDefinition> {
  if (definition.after.length === 0 && definition.afterAll.length === 0) return definition;
  const resolve = async (ref: string): Promise<string> => {
    if (ref === selfId) return ref;
    const job = await store.findJob(ref);
    if (job === null || job.state === 'cancelled') {
      throw new SchedError(
        'JOB_NOT_FOUND',
        `Job ${definition.name} would run after "${ref}", but there is no such job.`,
        {
          hint: 'Add that job first, or check its name with `sched ls`.',
          details: { ref },
        },
      );
    }
    return job.id;
  };
  const after: JobDefinition['after'] = [];
  for (const link of definition.after) {
    const job = await resolve(link.job);
    if (!after.some((known) => known.job === job && known.on === link.on)) after.push({ job, on: link.on });
  }
  const afterAll = [...new Set(await Promise.all(definition.afterAll.map(resolve)))];
  const resolved = { ...definition, after, afterAll };
  if (selfId !== null) await refuseCycle(resolved, selfId, store);
  return resolved;
}

async function refuseCycle(definition: JobDefinition, selfId: string, store: Store): Promise<void> {
  const edges = new Map<string, string[]>();
  for (const edge of await store.listDependencyEdges()) {
    const upstream = edges.get(edge.job) ?? [];
    upstream.push(edge.upstream);
    edges.set(edge.job, upstream);
  }
  const upstream = [...definition.after.map((link) => link.job), ...definition.afterAll];
  const cycle = findCycle(edges, { job: selfId, upstream });
  if (cycle === null) return;
  const names = await Promise.all(
    cycle.map(async (id) => (id === selfId ? definition.name : ((await store.findJob(id))?.name ?? id))),
  );
  throw cycleError(names);
}

/** Refuses to cancel a job others run after: their link to it would be dead, and nothing would say so. */
export function dependentsError(name: string, dependents: readonly { name: string }[]): SchedError {
  const names = dependents.map((dependent) => dependent.name);
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const verb = names.length === 1 ? 'runs' : 'run';
  return new SchedError(
    'HAS_DEPENDENTS',
    `Job ${name} was not cancelled: ${listed} ${verb} after it and would be left waiting for a job that never runs again.`,
    {
      hint:
        `Cancel ${names.length === 1 ? 'it' : 'them'} first, or have ${names.length === 1 ? 'it' : 'them'} run after another job ` +
        `(\`sched update ${names[0]} --after OTHER\`); or cancel ${name} anyway with \`sched cancel ${name} --force\`.`,
      details: { job: name, dependents: names },
    },
  );
}
