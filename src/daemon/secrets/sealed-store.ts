import type { Job } from '../../core/job.js';
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
    createJob: async (job: NewJob, ...rest) =>
      open(
        await tracked(store.createJob({ ...job, definition: sealer.seal(job.definition, job.id) }, ...rest)),
      ),
    updateJob: async (id: string, expectedVersion: number, change: JobChange, audit) =>
      open(
        await tracked(
          store.updateJob(
            id,
            expectedVersion,
            change.definition ? { ...change, definition: sealer.seal(change.definition, id) } : change,
            audit,
          ),
        ),
      ),
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
