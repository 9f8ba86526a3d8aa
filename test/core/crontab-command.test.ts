import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  decodeCronCommand,
  encodeCronCommand,
  fromShellScript,
  toShellScript,
  type CronCommand,
} from '../../src/core/crontab/command.js';
import { childEnv } from '../support/child-env.js';

describe('decodeCronCommand', () => {
  it('cuts at the first unescaped % and turns the other % into newlines', () => {
    expect(decodeCronCommand('mail -s hi ops%Dear ops,%%all good%')).toEqual({
      command: 'mail -s hi ops',
      stdin: 'Dear ops,\n\nall good\n',
    });
  });

  it('reads \\% as a percent sign in both halves and keeps other backslashes', () => {
    expect(decodeCronCommand('date +\\%F\\ \\n%100\\% sure')).toEqual({
      command: 'date +%F\\ \\n',
      stdin: '100% sure\n',
    });
  });

  it('lets an escaped backslash end the command, as Vixie cron does', () => {
    expect(decodeCronCommand('echo \\\\%in')).toEqual({ command: 'echo \\\\', stdin: 'in\n' });
  });

  it('reads a trailing % as no input', () => {
    expect(decodeCronCommand('date%')).toEqual({ command: 'date', stdin: null });
  });
});

describe('encodeCronCommand', () => {
  const values: CronCommand[] = [
    { command: 'date +%Y', stdin: null },
    { command: 'mail ops', stdin: 'one\n' },
    { command: 'mail ops', stdin: 'one\n\n' },
    { command: 'cat', stdin: '\n' },
    { command: 'printf "%s"', stdin: '50%\nof it\n' },
  ];

  it.each(values)('is the inverse of decodeCronCommand for %j', (value) => {
    const field = encodeCronCommand(value);
    expect(field).not.toBeNull();
    expect(decodeCronCommand(field ?? '')).toEqual(value);
  });

  it('writes the shortest spelling', () => {
    expect(encodeCronCommand({ command: 'mail ops', stdin: 'a\nb\n' })).toBe('mail ops%a%b');
  });

  it('says when cron has no spelling for a command', () => {
    expect(encodeCronCommand({ command: 'printf "a\\nb"\necho two', stdin: null })).toBeNull();
    expect(encodeCronCommand({ command: 'echo \\%', stdin: null })).toBeNull();
  });
});

describe('toShellScript', () => {
  it('is the command itself when there is no input', () => {
    expect(toShellScript({ command: 'date', stdin: null })).toBe('date');
  });

  it('feeds the input to the whole command, unexpanded, as cron does', () => {
    const stdin = 'first $HOME `id`\nSCHED_CRON_STDIN\nlast\n';
    const script = toShellScript({ command: 'cat; echo done', stdin });
    expect(execFileSync('/bin/sh', ['-c', script], { encoding: 'utf8', env: childEnv() })).toBe(
      `${stdin}done\n`,
    );
  });

  it('is read back by fromShellScript', () => {
    const value = { command: 'wc -l', stdin: 'a\nSCHED_CRON_STDIN\nSCHED_CRON_STDIN_1\n' };
    expect(fromShellScript(toShellScript(value))).toEqual(value);
    expect(fromShellScript('echo plain')).toEqual({ command: 'echo plain', stdin: null });
  });
});
