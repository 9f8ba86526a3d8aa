import { Flags } from '@oclif/core';
import { SchedError } from '../core/errors.js';
import type { JobInput, JobPatch } from '../core/job.js';
import { parseKeyValuePairs } from './key-value.js';

const GROUP = 'TIME POLICY';

/**
 * How a job behaves in time, for `add` and `update`. Values travel as typed; the daemon parses them (with the
 * parsers in core/policy), so a bad value gets the same error from every client.
 */
export const timePolicyFlags = {
  concurrency: Flags.string({
    summary:
      'When an instant comes due while the previous run still runs: forbid (skip it; the default), allow, replace or queue.',
    helpValue: 'allow|forbid|replace|queue',
    helpGroup: GROUP,
  }),
  misfire: Flags.string({
    summary:
      'Instants missed while the daemon was down or the job paused: skip, latest (run the newest once; the default), all, or count:N.',
    helpValue: 'skip|latest|all|count:N',
    helpGroup: GROUP,
  }),
  'catchup-window': Flags.string({
    summary: 'Never catch up an instant older than this (default 1h).',
    helpValue: 'DURATION',
    helpGroup: GROUP,
  }),
  'skip-if-next-within': Flags.string({
    summary: 'No catch-up run at all when the next regular run is at most this far off.',
    helpValue: 'DURATION',
    helpGroup: GROUP,
  }),
  'dst-gap': Flags.string({
    summary:
      'A wall time the clocks skip (spring forward): shift (run at the jump; the default) or skip (not that day).',
    helpValue: 'shift|skip',
    helpGroup: GROUP,
  }),
  'dst-repeat': Flags.string({
    summary: 'A wall time the clocks show twice (fall back): run at the first (default), the last, or both.',
    helpValue: 'first|last|both',
    helpGroup: GROUP,
  }),
  spread: Flags.string({
    summary:
      'Start each instant a fixed, per-job offset within this window after it, so jobs on one schedule do not all start at once.',
    helpValue: 'DURATION',
    helpGroup: GROUP,
  }),
  jitter: Flags.string({
    summary: 'Delay each instant by a fresh random amount up to this long.',
    helpValue: 'DURATION',
    helpGroup: GROUP,
  }),
  after: Flags.string({
    summary:
      'Run when this job finishes an instant: on success (the default), failure or always (repeatable).',
    helpValue: 'JOB[:success|failure|always]',
    multiple: true,
    multipleNonGreedy: true,
    helpGroup: GROUP,
  }),
  'after-all': Flags.string({
    summary:
      'Run once every one of these jobs has succeeded since this one last ran (repeatable, 2 or more).',
    helpValue: 'JOB',
    multiple: true,
    multipleNonGreedy: true,
    helpGroup: GROUP,
  }),
  placement: Flags.string({
    summary:
      'In a cluster (shared PostgreSQL or peers): once (one run per instant in the whole cluster; the default) or every-host (each live node runs it).',
    helpValue: 'once|every-host',
    helpGroup: 'CLUSTER',
  }),
  on: Flags.string({
    summary: 'Run only on nodes started with this --label (repeatable; all must match).',
    helpValue: 'KEY=VALUE',
    multiple: true,
    multipleNonGreedy: true,
    helpGroup: 'CLUSTER',
  }),
};

export interface TimePolicyFlagValues {
  concurrency?: string;
  misfire?: string;
  'catchup-window'?: string;
  'skip-if-next-within'?: string;
  'dst-gap'?: string;
  'dst-repeat'?: string;
  spread?: string;
  jitter?: string;
  after?: string[];
  'after-all'?: string[];
  placement?: string;
  on?: string[];
}

export type TimePolicyFields = Pick<
  JobInput,
  | 'concurrency'
  | 'misfire'
  | 'catchupWindow'
  | 'skipIfNextWithin'
  | 'dstGap'
  | 'dstRepeat'
  | 'spread'
  | 'fireJitter'
  | 'after'
  | 'afterAll'
  | 'placement'
  | 'on'
>;

export function timePolicyFields(flags: TimePolicyFlagValues): TimePolicyFields {
  return {
    concurrency: flags.concurrency,
    misfire: flags.misfire,
    catchupWindow: flags['catchup-window'],
    skipIfNextWithin: flags['skip-if-next-within'],
    dstGap: flags['dst-gap'],
    dstRepeat: flags['dst-repeat'],
    spread: flags.spread,
    fireJitter: flags.jitter,
    after: flags.after,
    afterAll: flags['after-all'],
    placement: flags.placement,
    on: parseKeyValuePairs(flags.on, 'on'),
  };
}

type ClearableField = NonNullable<JobPatch['clear']>[number];

/**
 * `sched update --clear-X`: back to "none" for the optional settings, as `--clear-timeout` does. Each is
 * exclusive with the flag that sets the same thing, since doing both at once says two things.
 */
export const timePolicyClearFlags = {
  'clear-spread': Flags.boolean({
    summary: 'Remove the spread: start at each instant.',
    exclusive: ['spread'],
    helpGroup: GROUP,
  }),
  'clear-jitter': Flags.boolean({
    summary: 'Remove the random delay of each instant.',
    exclusive: ['jitter'],
    helpGroup: GROUP,
  }),
  'clear-skip-if-next-within': Flags.boolean({
    summary: 'Always catch up, however near the next regular run is.',
    exclusive: ['skip-if-next-within'],
    helpGroup: GROUP,
  }),
  'clear-after': Flags.boolean({
    summary: 'Stop running after other jobs (--after).',
    exclusive: ['after'],
    helpGroup: GROUP,
  }),
  'clear-after-all': Flags.boolean({
    summary: 'Stop waiting for a set of jobs to succeed (--after-all).',
    exclusive: ['after-all'],
    helpGroup: GROUP,
  }),
  'clear-on': Flags.boolean({
    summary: 'Let the job run on any node again (drops --on).',
    exclusive: ['on'],
    helpGroup: 'CLUSTER',
  }),
};

export type TimePolicyClearFlagValues = { [K in keyof typeof timePolicyClearFlags]?: boolean };

const CLEARED: Readonly<Record<keyof typeof timePolicyClearFlags, ClearableField>> = {
  'clear-spread': 'spread',
  'clear-jitter': 'fireJitter',
  'clear-skip-if-next-within': 'skipIfNextWithin',
  'clear-after': 'after',
  'clear-after-all': 'afterAll',
  'clear-on': 'on',
};

/** The JobPatch `clear` entries that the given `--clear-*` time-policy flags ask for. */
export function timePolicyClears(flags: TimePolicyClearFlagValues): ClearableField[] {
  return Object.entries(CLEARED)
    .filter(([flag]) => flags[flag as keyof typeof CLEARED] === true)
    .map(([, field]) => field);
}

/**
 * `--jitter` used to be the retry backoff's on/off switch. Scripts written before it became a duration would
 * now fail with oclif's bare "Nonexistent flag", or read the next flag as a duration; this says what changed.
 */
export function assertNoRetiredJitterSwitch(own: readonly string[]): void {
  const index = own.findIndex((word) => word === '--no-jitter' || word === '--jitter');
  if (index === -1) return;
  const word = own[index];
  const next = own[index + 1];
  if (word === '--jitter' && next !== undefined && !next.startsWith('-')) return;
  throw new SchedError(
    'VALIDATION_FAILED',
    word === '--no-jitter'
      ? '--no-jitter is now --no-backoff-jitter.'
      : '--jitter needs a duration: it is now the random delay of each instant.',
    {
      hint:
        'The retry backoff’s jitter switch is --backoff-jitter / --no-backoff-jitter; --jitter D delays each ' +
        'instant by up to D, such as --jitter 30s (and `sched update --clear-jitter` removes it).',
      details: { flag: word },
    },
  );
}
