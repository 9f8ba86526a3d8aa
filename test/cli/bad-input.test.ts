import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, removeHome, sched, startDaemon, type RunningDaemon } from '../support/sched-harness.js';

describe('bad input through the real CLI', () => {
  let home: string;
  let daemon: RunningDaemon;

  beforeAll(async () => {
    home = makeHome();
    daemon = await startDaemon(home);
    expect((await sched(home, ['add', 'existing', '--every', '1h', '--', 'true'])).code).toBe(0);
  });

  afterAll(async () => {
    await daemon.stop('SIGKILL');
    removeHome(home);
  });

  const storedJobs = async () =>
    (
      await sched(home, ['ls', '--status', 'active', '--status', 'paused', '--status', 'cancelled', '--json'])
    ).json.items.map((job: { name: string }) => job.name);

  const cases: Array<{ name: string; args: string[]; code: string; exit: number; says: RegExp }> = [
    {
      name: 'an invalid cron field',
      args: ['add', 'x', '--cron', '61 * * * *', '--', 'true'],
      code: 'INVALID_SCHEDULE',
      exit: 2,
      says: /minute/i,
    },
    {
      name: 'an unknown time zone',
      args: ['add', 'x', '--cron', '0 3 * * *', '--tz', 'Mars/Olympus', '--', 'true'],
      code: 'UNKNOWN_TIMEZONE',
      exit: 2,
      says: /Mars\/Olympus/,
    },
    {
      name: 'an at instant in the past',
      args: ['add', 'x', '--at', '2020-01-01T00:00:00Z', '--', 'true'],
      code: 'AT_IN_PAST',
      exit: 2,
      says: /past|future/i,
    },
    {
      name: 'an empty command',
      args: ['add', 'x', '--every', '1m'],
      code: 'EMPTY_COMMAND',
      exit: 2,
      says: /command/i,
    },
    {
      name: 'a blank shell script',
      args: ['add', 'x', '--every', '1m', '--shell', '  '],
      code: 'EMPTY_COMMAND',
      exit: 2,
      says: /command/i,
    },
    {
      name: 'two schedules at once',
      args: ['add', 'x', '--every', '1m', '--cron', '* * * * *', '--', 'true'],
      code: 'VALIDATION_FAILED',
      exit: 2,
      says: /schedule|cron|every/i,
    },
    {
      name: 'a duplicate name',
      args: ['add', 'existing', '--every', '1m', '--', 'true'],
      code: 'NAME_TAKEN',
      exit: 4,
      says: /existing/,
    },
    {
      name: 'an unknown job',
      args: ['show', 'no-such-job'],
      code: 'JOB_NOT_FOUND',
      exit: 3,
      says: /no-such-job/,
    },
    {
      name: 'an unknown run',
      args: ['logs', '01890000-0000-7000-8000-000000000000'],
      code: 'RUN_NOT_FOUND',
      exit: 3,
      says: /run/i,
    },
    {
      name: 'a new job named like a job id',
      args: ['add', '0193a3c2-7f1e-7c3a-9b2d-4e5f6a7b8c9d', '--every', '1m', '--', 'true'],
      code: 'VALIDATION_FAILED',
      exit: 2,
      says: /shape of a job id/,
    },
    {
      name: 'a rename to a job id',
      args: ['update', 'existing', '--name', '0193a3c2-7f1e-7c3a-9b2d-4e5f6a7b8c9d'],
      code: 'VALIDATION_FAILED',
      exit: 2,
      says: /shape of a job id/,
    },
    ...[
      ['ls', '--cursor', 'garbage'],
      ['history', '--cursor', 'garbage'],
      ['audit', '--cursor', 'garbage'],
      // Not a number of milliseconds, though JavaScript's Number() would make one of it.
      ['history', 'existing', '--all-occurrences', '--cursor', '0x1f'],
    ].map((args) => ({
      name: `a garbage cursor to ${args[0]}${args.includes('--all-occurrences') ? ' --all-occurrences' : ''}`,
      args,
      code: 'VALIDATION_FAILED',
      exit: 2,
      says: new RegExp(`Invalid cursor "${args.at(-1)}"`),
    })),
    {
      name: 'a malformed duration',
      args: ['add', 'x', '--every', 'soon', '--', 'true'],
      code: 'INVALID_SCHEDULE',
      exit: 2,
      says: /soon/,
    },
  ];

  for (const { name, args, code, exit, says } of cases) {
    it(`rejects ${name} with ${code}, a hint, exit ${exit}, and stores nothing`, async () => {
      const before = await storedJobs();
      const human = await sched(home, args);
      expect(human.code).toBe(exit);
      expect(human.stderr).toMatch(says);
      expect(human.stderr).toMatch(/Hint: /);
      expect(human.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);

      const json = await sched(home, [
        ...args.slice(0, args.indexOf('--') === -1 ? args.length : args.indexOf('--')),
        '--json',
        ...(args.includes('--') ? args.slice(args.indexOf('--')) : []),
      ]);
      expect(json.code).toBe(exit);
      expect(json.json.error).toMatchObject({ code, message: expect.stringMatching(says) });
      expect(typeof json.json.error.timestamp).toBe('string');
      expect(await storedJobs()).toEqual(before);
    });
  }

  it('rejects a payload over 1 MiB with PAYLOAD_TOO_LARGE and stores nothing', async () => {
    const file = path.join(home, 'big.json');
    fs.writeFileSync(file, JSON.stringify({ blob: 'x'.repeat(1024 * 1024) }));
    const result = await sched(home, [
      'add',
      'big',
      '--every',
      '1m',
      '--payload',
      `@${file}`,
      '--json',
      '--',
      'true',
    ]);
    expect(result.code).toBe(2);
    expect(result.json.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await storedJobs()).not.toContain('big');
  });

  it('reports a daemon that is not running with exit 7 and how to start it', async () => {
    const empty = makeHome();
    try {
      const result = await sched(empty, ['ls']);
      expect(result.code).toBe(7);
      expect(result.stderr).toMatch(/not running/);
      expect(result.stderr).toMatch(/sched daemon run/);
    } finally {
      removeHome(empty);
    }
  });
});
