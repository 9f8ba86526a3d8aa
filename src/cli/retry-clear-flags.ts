import { Flags } from '@oclif/core';
import type { JobPatch } from '../core/job.js';

type ClearableField = NonNullable<JobPatch['clear']>[number];

/** `sched update`'s flags that remove a retry rule, so the job's failures are classed by default again. */
export const retryClearFlags = {
  'clear-retry-on': Flags.boolean({
    summary: 'Remove the --retry-on list.',
    exclusive: ['retry-on'],
    helpGroup: 'RETRY',
  }),
  'clear-no-retry-on': Flags.boolean({
    summary: 'Remove the --no-retry-on list.',
    exclusive: ['no-retry-on'],
    helpGroup: 'RETRY',
  }),
  'clear-retry-deadline': Flags.boolean({
    summary: 'Retry without a deadline again.',
    exclusive: ['retry-deadline'],
    helpGroup: 'RETRY',
  }),
};

const CLEARED: Readonly<Record<keyof typeof retryClearFlags, ClearableField>> = {
  'clear-retry-on': 'retryOn',
  'clear-no-retry-on': 'noRetryOn',
  'clear-retry-deadline': 'retryDeadline',
};

/** The JobPatch `clear` entries that the given `--clear-*` retry flags ask for. */
export function retryClears(flags: { [K in keyof typeof retryClearFlags]?: boolean }): ClearableField[] {
  return Object.entries(CLEARED)
    .filter(([flag]) => flags[flag as keyof typeof CLEARED] === true)
    .map(([, field]) => field);
}
