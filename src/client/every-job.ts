import type { Job } from '../core/job.js';
import type { Params } from '../ipc/protocol.js';
import type { DaemonConnection } from './daemon-connection.js';

/** Every job a `job.list` query matches, page after page; the cursor only moves forward, so this ends. */
export async function listEveryJob(
  client: Pick<DaemonConnection, 'call'>,
  query: Omit<Params<'job.list'>, 'cursor'>,
): Promise<Job[]> {
  const jobs: Job[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.call('job.list', { ...query, cursor });
    jobs.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return jobs;
}
