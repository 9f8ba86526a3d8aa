import path from 'node:path';
import { Flags } from '@oclif/core';
import { SchedError } from '../core/errors.js';
import type { JobInput } from '../core/job.js';
import { parseKeyValuePairs } from './key-value.js';
import { readPayloadArgument } from './payload.js';

const SCHEDULE_FLAGS = ['cron', 'at', 'every'];

/** `sched add` needs exactly one schedule; `sched update` may change it or leave it alone. */
export function scheduleFlags(mode: 'required' | 'optional') {
  const relation = (own: string) =>
    mode === 'required'
      ? { exactlyOne: SCHEDULE_FLAGS }
      : { exclusive: SCHEDULE_FLAGS.filter((name) => name !== own) };
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
};

export interface JobFlagValues {
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
}

export type JobFields = Omit<JobInput, 'name'>;

/**
 * Turns parsed flags (and the command after `--`) into the fields of a JobInput. Only what the client
 * alone can know is done here: reading @files and resolving the cwd against this shell's directory.
 * Everything else (schedules, zones, durations, JSON) is checked once, by the daemon.
 */
export async function jobFieldsFromFlags(
  flags: JobFlagValues,
  command: string[] | undefined,
  cwd: string,
): Promise<JobFields> {
  if (command !== undefined && flags.shell !== undefined) {
    throw new SchedError('VALIDATION_FAILED', 'Both --shell and a command after "--" were given.', {
      hint: 'Give the command either after "--" (run directly) or as --shell SCRIPT (run by /bin/sh -c), not both.',
    });
  }
  const fields: JobFields = {
    cron: flags.cron,
    at: flags.at,
    every: flags.every,
    timezone: flags.tz,
    timeout: flags.timeout,
    payload: flags.payload === undefined ? undefined : await readPayloadArgument(flags.payload, cwd),
    env: parseKeyValuePairs(flags.env, 'env'),
    cwd: flags.cwd === undefined ? undefined : path.resolve(cwd, flags.cwd),
    labels: parseKeyValuePairs(flags.label, 'label'),
    description: flags.description,
    shell: flags.shell,
    argv: command,
  };
  return withoutUndefined(fields);
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
