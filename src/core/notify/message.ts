import { formatDuration } from '../duration.js';
import type { Job } from '../job.js';
import type { Run } from '../run.js';
import type { Delivery } from './delivery.js';

/** What every target is told, before it is shaped for the target (JSON, Slack, Teams, e-mail). */
export interface NotifyMessage {
  event: Delivery['kind'] | 'test';
  deliveryId: string;
  job: { id: string; name: string; labels: Record<string, string> };
  run: Run | null;
  /** One sentence a person reads, such as "nightly failed for good: exit code 1 after 3 attempts." */
  sentence: string;
  at: number;
}

/** The sentence of a run's end, said the way a person would want it at 3 in the morning. */
export function runSentence(
  kind: NotifyMessage['event'],
  jobName: string,
  run: Run | null,
  detail: string,
): string {
  if (kind === 'test') return `This is a test notification for job ${jobName}, sent by sched notify test.`;
  if (kind === 'summary') return `${jobName}: ${detail}`;
  if (kind === 'overdue') return `${jobName} is overdue: ${detail}`;
  if (run === null)
    return kind === 'recovered' ? `${jobName} recovered. ${detail}`.trim() : `${jobName}: ${kind}.`;
  const attempt = run.attempt > 1 ? ` (attempt ${run.attempt})` : '';
  const how = failureWords(run);
  switch (kind) {
    case 'dead':
      return `${jobName} failed for good${attempt}: ${how}; no retry follows.`;
    case 'failure':
      return `${jobName} failed${attempt}: ${how}.`;
    case 'recovered':
      return `${jobName} recovered: run ${run.id} succeeded after earlier failures.`;
    case 'success':
      return `${jobName} succeeded${attempt}${duration(run)}.`;
  }
}

function failureWords(run: Run): string {
  if (run.state === 'timed_out') return 'it timed out';
  if (run.state === 'lost') return run.error ?? 'the run was lost';
  if (run.httpStatus !== null) return `HTTP ${run.httpStatus}`;
  if (run.signal !== null) return `killed by ${run.signal}`;
  if (run.exitCode !== null) return `exit code ${run.exitCode}${run.error ? ` (${run.error})` : ''}`;
  return run.error ?? run.state;
}

function duration(run: Run): string {
  return run.startedAt !== null && run.finishedAt !== null
    ? ` in ${formatDuration(run.finishedAt - run.startedAt)}`
    : '';
}

export function buildMessage(
  event: NotifyMessage['event'],
  deliveryId: string,
  job: Pick<Job, 'id' | 'name' | 'labels'>,
  run: Run | null,
  detail: string,
  at: number,
): NotifyMessage {
  return {
    event,
    deliveryId,
    job: { id: job.id, name: job.name, labels: job.labels },
    run,
    sentence: runSentence(event, job.name, run, detail),
    at,
  };
}
