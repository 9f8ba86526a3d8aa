import type { Job } from '../../core/job.js';
import type { Store } from '../../store/store.js';
import { sealingOf, type DefinitionSealer } from './definition-sealer.js';

const PAGE = 500;
/** A job changed this many times while it was being re-sealed is left to the next pass. */
const ATTEMPTS = 5;

/**
 * Every job holding a secret value as stored (sealed or plain), cancelled ones too, a page at a time. The
 * others have nothing to seal: the store finds these from an index instead of reading every job.
 */
export async function* jobsHoldingSecrets(store: Store): AsyncGenerator<Job> {
  let cursor: string | undefined;
  do {
    const page = await store.listJobs({
      limit: PAGE,
      cursor,
      states: ['active', 'paused', 'cancelled'],
      holdingSecrets: true,
    });
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** The keys the stored secrets are sealed under, with a job sealed under each, and how many jobs hold plain values. */
export async function keysInUse(store: Store): Promise<{ keys: Map<string, string>; plainJobs: number }> {
  const keys = new Map<string, string>();
  let plainJobs = 0;
  for await (const job of jobsHoldingSecrets(store)) {
    const { keyIds, plain } = sealingOf(job);
    for (const id of keyIds) if (!keys.has(id)) keys.set(id, job.id);
    if (plain) plainJobs += 1;
  }
  return { keys, plainJobs };
}

/**
 * Seals again, under the current key, every stored secret that is plain or sealed under another key; each
 * job is rewritten only if it did not change meanwhile (then it is read again). Returns what it went through:
 * the jobs holding secrets.
 */
export async function resealAll(
  store: Store,
  sealer: DefinitionSealer,
): Promise<{ jobs: number; resealed: number; left: number }> {
  let jobs = 0;
  let resealed = 0;
  let left = 0;
  for await (const stored of jobsHoldingSecrets(store)) {
    jobs += 1;
    let job: Job | null = stored;
    for (let attempt = 0; job !== null && sealer.needsResealing(job); attempt += 1) {
      if (attempt === ATTEMPTS) {
        left += 1;
        break;
      }
      const again = sealer.seal(sealer.open(job), job.id);
      if (await store.rewriteDefinition(again)) {
        resealed += 1;
        break;
      }
      job = await store.findJob(job.id);
    }
  }
  return { jobs, resealed, left };
}
