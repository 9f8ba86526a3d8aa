import { Flags } from '@oclif/core';
import type { JobInput, JobPatch } from '../core/job.js';

const GROUP = 'NOTIFY';

/** `--notify`, `--notify-on` and the dead-man's switch, the same for `add` and `update`. */
export const alertFlags = {
  notify: Flags.string({
    summary:
      'Tell this target about the job (repeatable): an http(s) webhook, slack+https://…, teams+https://… or mailto:ADDRESS.',
    helpValue: 'URL',
    multiple: true,
    multipleNonGreedy: true,
    helpGroup: GROUP,
  }),
  'notify-on': Flags.string({
    summary:
      'Which events to tell about: a comma list of failure, dead, recovered, success, overdue (default dead,recovered; and overdue with --expect-success-every).',
    helpValue: 'EVENTS',
    helpGroup: GROUP,
  }),
  'expect-success-every': Flags.string({
    summary: 'Turn the job overdue (and notify) when no run has succeeded for this long, such as 26h.',
    helpValue: 'DURATION',
    aliases: ['max-silence'],
    helpGroup: GROUP,
  }),
};

export interface AlertFlagValues {
  notify?: string[];
  'notify-on'?: string;
  'expect-success-every'?: string;
}

export function alertFields(
  flags: AlertFlagValues,
): Pick<JobInput, 'notify' | 'notifyOn' | 'expectSuccessEvery'> {
  return {
    notify: flags.notify,
    notifyOn: flags['notify-on'],
    expectSuccessEvery: flags['expect-success-every'],
  };
}

/** `sched update --clear-notify` and friends. */
export const alertClearFlags = {
  'clear-notify': Flags.boolean({
    summary: 'Use the config file’s [notify] targets again.',
    exclusive: ['notify'],
    helpGroup: GROUP,
  }),
  'clear-notify-on': Flags.boolean({
    summary: 'Use the config file’s [notify] events again.',
    exclusive: ['notify-on'],
    helpGroup: GROUP,
  }),
  'clear-expect-success-every': Flags.boolean({
    summary: 'Turn the dead-man’s switch off.',
    exclusive: ['expect-success-every'],
    helpGroup: GROUP,
  }),
};

type ClearableField = NonNullable<JobPatch['clear']>[number];

export function alertClears(flags: { [K in keyof typeof alertClearFlags]?: boolean }): ClearableField[] {
  const cleared: ClearableField[] = [];
  if (flags['clear-notify']) cleared.push('notify');
  if (flags['clear-notify-on']) cleared.push('notifyOn');
  if (flags['clear-expect-success-every']) cleared.push('expectSuccessEvery');
  return cleared;
}
