import path from 'node:path';
import { Flags } from '@oclif/core';
import { SchedError } from '../core/errors.js';
import type { JobInput } from '../core/job.js';
import { alertFields, alertFlags, type AlertFlagValues } from './alert-flags.js';
import { parseKeyValuePairs } from './key-value.js';
import { readPayloadArgument } from './payload.js';
import { timePolicyFields, timePolicyFlags, type TimePolicyFlagValues } from './time-policy-flags.js';

const SCHEDULE_FLAGS = ['cron', 'at', 'every'];

/**
 * At most one schedule. `sched add` may give none when the job runs only `--after` other jobs; whether a job
 * without either is acceptable is the daemon's call (its normalization says what to give), not the parser's.
 */
export function scheduleFlags() {
  const relation = (own: string) => ({ exclusive: SCHEDULE_FLAGS.filter((name) => name !== own) });
  return {
    cron: Flags.string({
      summary: 'Run on a cron expression (5 fields, or 6 with seconds first).',
      helpValue: 'EXPR',
      ...relation('cron'),
    }),
    at: Flags.string({
      summary: 'Run once, at this time (ISO instant, or local time in --tz).',
      helpValue: 'TIME',
      ...relation('at'),
    }),
    every: Flags.string({
      summary: 'Run at a fixed interval, such as 30s, 5m or 1h30m.',
      helpValue: 'DURATION',
      ...relation('every'),
    }),
  };
}

/** Where, how and with what the job runs; the same for `add` and `update`. */
export const jobSpecFlags = {
  tz: Flags.string({
    summary: "IANA time zone of the schedule (default: the daemon host's).",
    helpValue: 'ZONE',
  }),
  timeout: Flags.string({ summary: 'Kill the run after this long, such as 10m.', helpValue: 'DURATION' }),
  payload: Flags.string({
    summary: 'JSON given to the job on stdin, or @FILE to read it from a file.',
    helpValue: 'JSON|@FILE',
  }),
  env: Flags.string({
    summary: 'Set an environment variable for the job (repeatable).',
    helpValue: 'KEY=VALUE',
    multiple: true,
    multipleNonGreedy: true,
  }),
  cwd: Flags.string({
    summary: 'Working directory of the job (resolved against the current one).',
    helpValue: 'DIR',
  }),
  label: Flags.string({
    summary: 'Attach a label, for filtering (repeatable).',
    helpValue: 'KEY=VALUE',
    multiple: true,
    multipleNonGreedy: true,
  }),
  description: Flags.string({ summary: 'What the job is for, in a sentence.', helpValue: 'TEXT' }),
  shell: Flags.string({
    summary: 'Run this script with /bin/sh -c instead of a command after --.',
    helpValue: 'SCRIPT',
  }),
  ...retryFlags(),
  ...httpFlags(),
  ...timePolicyFlags,
  ...alertFlags,
};

function retryFlags() {
  return {
    retries: Flags.integer({
      summary: 'Retry a failed, timed-out or lost run up to N more times (0-100, default 0).',
      helpValue: 'N',
      helpGroup: 'RETRY',
    }),
    backoff: Flags.string({
      summary: 'Delay before the first retry (default 10s).',
      helpValue: 'DURATION',
      helpGroup: 'RETRY',
    }),
    'backoff-factor': Flags.custom<number>({
      summary: 'Multiply the delay by this after each retry (default 2; 1 keeps it constant).',
      helpValue: 'F',
      helpGroup: 'RETRY',
      parse: async (input) => parseNumber(input),
    })(),
    'backoff-max': Flags.string({
      summary: 'Longest delay between attempts (default 1h).',
      helpValue: 'DURATION',
      helpGroup: 'RETRY',
    }),
    // No default, so that `sched update` without it keeps the stored setting. Not `--jitter`: that is the
    // random delay of each instant (TIME POLICY).
    'backoff-jitter': Flags.boolean({
      summary:
        'Wait a random part of each delay, so jobs failing together do not retry together (default on).',
      allowNo: true,
      helpGroup: 'RETRY',
    }),
    'backoff-type': Flags.string({
      summary: 'How delays grow: exponential (by --backoff-factor, default), linear or constant.',
      helpValue: 'exponential|linear|constant',
      helpGroup: 'RETRY',
    }),
    'retry-on': Flags.string({
      summary: 'Also retry these exit codes or HTTP statuses, such as 409 (4xx is otherwise not retried).',
      helpValue: 'CODES',
      helpGroup: 'RETRY',
    }),
    'no-retry-on': Flags.string({
      summary: 'Never retry these exit codes or HTTP statuses, such as 2,3.',
      helpValue: 'CODES',
      helpGroup: 'RETRY',
    }),
    'retry-deadline': Flags.string({
      summary: 'Start no retry later than this long after the first attempt started, such as 1h.',
      helpValue: 'DURATION',
      helpGroup: 'RETRY',
    }),
  };
}

function httpFlags() {
  return {
    http: Flags.string({
      summary: 'Call this URL instead of running a command; the payload is the JSON body.',
      helpValue: 'URL',
      helpGroup: 'HTTP',
    }),
    method: Flags.string({
      summary: 'HTTP method (default POST with a payload, else GET).',
      helpValue: 'METHOD',
      helpGroup: 'HTTP',
    }),
    header: Flags.string({
      summary: "Send this request header (repeatable), such as 'Authorization: Bearer TOKEN'.",
      helpValue: "'NAME: VALUE'",
      multiple: true,
      multipleNonGreedy: true,
      helpGroup: 'HTTP',
    }),
    expect: Flags.string({
      summary: 'Statuses that count as success: a class such as 2xx (default) or codes such as 200,204.',
      helpValue: '2xx|CODES',
      helpGroup: 'HTTP',
    }),
    'breaker-failures': Flags.integer({
      summary: "Open the URL origin's circuit breaker after N failures in a row (default 5).",
      helpValue: 'N',
      helpGroup: 'HTTP',
    }),
    'breaker-cooldown': Flags.string({
      summary: 'How long an open breaker waits before letting one trial request through (default 30s).',
      helpValue: 'DURATION',
      helpGroup: 'HTTP',
    }),
  };
}

/** `--idempotency-key` of `add` and `trigger`: a repeat with the same key within 24h does not act twice. */
export const idempotencyKeyFlag = {
  'idempotency-key': Flags.string({
    summary: 'Make a repeat of this request within 24h (a retry after a lost reply) return the first answer.',
    helpValue: 'KEY',
  }),
};

// oclif has no float flag; an error thrown here is reported as a usage error for this flag.
function parseNumber(input: string): number {
  const value = Number(input);
  if (input.trim() === '' || !Number.isFinite(value))
    throw new Error(`Expected a number, such as 2 or 1.5, but received: ${input}`);
  return value;
}

export interface JobFlagValues extends TimePolicyFlagValues, AlertFlagValues {
  cron?: string;
  at?: string;
  every?: string;
  tz?: string;
  timeout?: string;
  payload?: string;
  env?: string[];
  cwd?: string;
  label?: string[];
  description?: string;
  shell?: string;
  retries?: number;
  backoff?: string;
  'backoff-factor'?: number;
  'backoff-max'?: string;
  'backoff-jitter'?: boolean;
  'backoff-type'?: string;
  'retry-on'?: string;
  'no-retry-on'?: string;
  'retry-deadline'?: string;
  http?: string;
  method?: string;
  header?: string[];
  expect?: string;
  'breaker-failures'?: number;
  'breaker-cooldown'?: string;
}

export type JobFields = Omit<JobInput, 'name'>;

/**
 * Turns parsed flags (and the command after `--`) into the fields of a JobInput. Only what the client
 * alone can know is done here: reading @files and resolving the cwd against this shell's directory.
 * Everything else (schedules, zones, durations, JSON) is checked once, by the daemon. With
 * `runHere`, a new command job without --cwd runs in `cwd`, so `-- ./backup.sh` means the backup.sh the
 * user sees, wherever the daemon was started. For a `remote` daemon this shell's directory is on another
 * machine: a job runs where the daemon starts it, and --cwd must be absolute.
 */
export async function jobFieldsFromFlags(
  flags: JobFlagValues,
  command: string[] | undefined,
  cwd: string,
  options: { runHere?: boolean; remote?: boolean } = {},
): Promise<JobFields> {
  assertOneTarget(flags, command);
  const fields: JobFields = {
    cron: flags.cron,
    at: flags.at,
    every: flags.every,
    timezone: flags.tz,
    timeout: flags.timeout,
    payload: flags.payload === undefined ? undefined : await readPayloadArgument(flags.payload, cwd),
    env: parseKeyValuePairs(flags.env, 'env'),
    cwd: options.remote
      ? remoteJobDirectory(flags)
      : jobDirectory(flags, command, cwd, options.runHere === true),
    labels: parseKeyValuePairs(flags.label, 'label'),
    description: flags.description,
    shell: flags.shell,
    argv: command,
    http: flags.http,
    method: flags.method,
    headers: flags.header,
    expect: flags.expect,
    breakerFailures: flags['breaker-failures'],
    breakerCooldown: flags['breaker-cooldown'],
    retries: flags.retries,
    backoff: flags.backoff,
    backoffFactor: flags['backoff-factor'],
    backoffMax: flags['backoff-max'],
    jitter: flags['backoff-jitter'],
    backoffType: flags['backoff-type'],
    retryOn: flags['retry-on'],
    noRetryOn: flags['no-retry-on'],
    retryDeadline: flags['retry-deadline'],
    ...timePolicyFields(flags),
    ...alertFields(flags),
  };
  return withoutUndefined(fields);
}

function jobDirectory(
  flags: JobFlagValues,
  command: string[] | undefined,
  cwd: string,
  runHere: boolean,
): string | undefined {
  if (flags.cwd !== undefined) return path.resolve(cwd, flags.cwd);
  const commandJob = flags.http === undefined && (command !== undefined || flags.shell !== undefined);
  return runHere && commandJob ? cwd : undefined;
}

function remoteJobDirectory(flags: JobFlagValues): string | undefined {
  if (flags.cwd === undefined || path.isAbsolute(flags.cwd)) return flags.cwd;
  throw new SchedError('VALIDATION_FAILED', `--cwd ${flags.cwd} is relative, and the daemon is remote.`, {
    hint: 'Give the directory on the daemon’s host as an absolute path, such as --cwd /srv/app.',
  });
}

/** A job runs one thing: a command after "--", a --shell script, or a request to an --http URL. */
function assertOneTarget(flags: JobFlagValues, command: string[] | undefined): void {
  const given = [
    ...(flags.http === undefined ? [] : ['--http']),
    ...(flags.shell === undefined ? [] : ['--shell']),
    ...(command === undefined ? [] : ['a command after "--"']),
  ];
  if (given.length < 2) return;
  const message =
    given.length === 2
      ? `Both ${given[0]} and ${given[1]} were given.`
      : `${given.slice(0, -1).join(', ')} and ${given.at(-1)} were all given.`;
  throw new SchedError('VALIDATION_FAILED', message, {
    hint: 'Give one: a command after "--" (run directly), --shell SCRIPT (run by /bin/sh -c), or --http URL (called with the payload as its body).',
    details: { given },
  });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
