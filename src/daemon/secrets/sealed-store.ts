import type { Job, JobDefinition } from '../../core/job.js';
import type { JobChange, NewJob, Page, Store } from '../../store/store.js';
import type { DefinitionSealer } from './definition-sealer.js';

/**
 * The store as the daemon uses it: secret values are sealed on their way in and opened on their way out,
 * so the daemon works with real values (its jobs receive them) while the database, its WAL, the audit
 * images, the outbox and idempotency replies hold only sealed ones. Every other method is the store's own.
 * `writes` counts the writes under way that sealed with the key current when they began, so a rotation can
 * wait for them before it re-seals.
 */
export function sealSecretsOf(store: Store, sealer: DefinitionSealer, writes: Set<Promise<unknown>>): Store {
  const open = (job: Job): Job => sealer.open(job);
  const openAll = (jobs: Job[]): Job[] => jobs.map(open);
  const tracked = <T>(write: Promise<T>): Promise<T> => {
    writes.add(write);
    return write.finally(() => writes.delete(write));
  };
  const overrides: Partial<Store> = {
    // What was just written is given back with the values it was given, rather than opened again.
    createJob: async (job: NewJob, ...rest) =>
      withValuesOf(
        job.definition,
        await tracked(store.createJob({ ...job, definition: sealer.seal(job.definition, job.id) }, ...rest)),
      ),
    updateJob: async (id: string, expectedVersion: number, change: JobChange, audit) => {
      const { definition } = change;
      const sealed = definition ? { ...change, definition: sealer.seal(definition, id) } : change;
      const updated = await tracked(store.updateJob(id, expectedVersion, sealed, audit));
      return definition ? withValuesOf(definition, updated) : open(updated);
    },
    cancelJob: async (...args) => open(await store.cancelJob(...args)),
    findJob: async (...args) => {
      const job = await store.findJob(...args);
      return job === null ? null : open(job);
    },
    listJobs: async (...args): Promise<Page<Job>> => {
      const page = await store.listJobs(...args);
      return { ...page, items: openAll(page.items) };
    },
    dueJobs: async (...args) => openAll(await store.dueJobs(...args)),
    listDependents: async (...args) => openAll(await store.listDependents(...args)),
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === 'string' && property in overrides) return overrides[property as keyof Store];
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The stored job with the secret values of `definition` (its target and payload) in place of the sealed ones. */
function withValuesOf(definition: JobDefinition, stored: Job): Job {
  return { ...stored, target: definition.target, payload: definition.payload };
}
