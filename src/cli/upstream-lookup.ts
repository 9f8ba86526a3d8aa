import { isSchedError } from '../core/errors.js';
import type { Job } from '../core/job.js';
import type { UpstreamRef } from './format/time-policy.js';

/** The ids of the jobs a job runs after, each once, in the order they appear. */
export function upstreamIds(job: Pick<Job, 'after' | 'afterAll'>): string[] {
  return [...new Set([...job.after.map((dependency) => dependency.job), ...job.afterAll])];
}

/**
 * Names the upstream jobs (stored as ids) with one lookup each; a job that no longer exists gets a null name
 * rather than failing the whole command, since the dependent job is still worth showing.
 */
export async function lookUpUpstreams(
  ids: readonly string[],
  getJob: (id: string) => Promise<Job>,
): Promise<Map<string, UpstreamRef>> {
  const refs = await Promise.all(
    ids.map(async (id): Promise<UpstreamRef> => {
      try {
        const job = await getJob(id);
        return { id, name: job.name, state: job.state };
      } catch (error) {
        if (isSchedError(error) && error.code === 'JOB_NOT_FOUND') return { id, name: null, state: null };
        throw error;
      }
    }),
  );
  return new Map(refs.map((ref) => [ref.id, ref]));
}
