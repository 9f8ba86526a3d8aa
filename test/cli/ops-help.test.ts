import { Config } from '@oclif/core';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, removeHome, repoRoot, sched } from '../support/sched-harness.js';

const home = makeHome('sched-ops-help-');
afterAll(() => removeHome(home));

// Every command oclif knows, the plugins' included, as the words a user types. `help` is oclif's own
// help command: it is what prints the examples of the others.
const config = await Config.load(repoRoot);
const commands = config.commands
  .filter((command) => !command.hidden && command.id !== 'help')
  .map((command) => command.id.split(':'));

describe('every command', () => {
  it('is registered, plugins included', () => {
    const ids = commands.map((words) => words.join(' '));
    expect(ids).toEqual(
      expect.arrayContaining([
        'autocomplete',
        'config show',
        'daemon install',
        'daemon stop',
        'doctor',
        'export',
        'import crontab',
        'import json',
      ]),
    );
  });

  it.each(commands.map((words) => [words.join(' '), words]))(
    'has examples in its help: %s',
    async (_id, words) => {
      const result = await sched(home, [...(words as string[]), '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^EXAMPLES$/m);
    },
  );
});

describe('a mistyped command', () => {
  it('is refused with exit 2, naming the nearest command without running it', async () => {
    const result = await sched(home, ['lss']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'Error: Unknown command "lss".\nHint: Did you mean `sched ls`? Run `sched help` to list the commands.\n',
    );
    expect(result.stdout).toBe('');
  });

  it('names only the command words, not the arguments after them', async () => {
    const result = await sched(home, ['daemon', 'stats', 'now']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command "daemon stats".');
    expect(result.stderr).toContain('Did you mean `sched daemon status`');
  });

  it.each([
    ['after the command', ['run', 'cleanup', '--json']],
    ['before the command', ['--json', 'run', 'cleanup']],
  ])('prints the JSON error envelope with --json %s', async (_where, args) => {
    const result = await sched(home, args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('');
    expect(result.json).toEqual({
      error: {
        code: 'UNKNOWN_COMMAND',
        message: 'Unknown command "run".',
        hint: 'Run `sched help` to list the commands.',
        details: { command: 'run', suggestions: [] },
        timestamp: expect.any(String),
      },
    });
  });
});
