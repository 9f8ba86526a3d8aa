import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, removeHome, sched } from '../support/sched-harness.js';

// No daemon runs in this home: a cron expression needs none.
let home: string;
beforeAll(() => {
  home = makeHome();
});
afterAll(() => removeHome(home));

const NY = ['--tz', 'America/New_York'];
const SPRING = [...NY, '--from', '2026-03-07 00:00', '-n', '3'];
const FALL = [...NY, '--from', '2026-10-31 00:00', '-n', '3'];

describe('sched next --explain across the 2026 New York spring-forward (subprocess, no daemon)', () => {
  it('given gap=shift (the default), when explained, then 02:30 on March 8 runs at 03:00 EDT and says it moved', async () => {
    const result = await sched(home, ['next', '30 2 * * *', ...SPRING, '--explain']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'Sat 2026-03-07 02:30 EST (-05:00)  2026-03-07T07:30:00Z',
        'Sun 2026-03-08 03:00 EDT (-04:00)  2026-03-08T07:00:00Z',
        '  moved from 02:30 (skipped by the spring-forward jump) to 03:00 EDT',
        'Mon 2026-03-09 02:30 EDT (-04:00)  2026-03-09T06:30:00Z',
        '',
      ].join('\n'),
    );
  });

  it('given gap=skip, when explained, then March 8 is listed as not run and three runs still follow', async () => {
    const result = await sched(home, ['next', '30 2 * * *', ...SPRING, '--dst-gap', 'skip', '--explain']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'Sat 2026-03-07 02:30 EST (-05:00)  2026-03-07T07:30:00Z',
        'Sun 2026-03-08 02:30 (no such time)  not run',
        '  skipped: 02:30 does not exist on 2026-03-08 (--dst-gap skip)',
        'Mon 2026-03-09 02:30 EDT (-04:00)  2026-03-09T06:30:00Z',
        'Tue 2026-03-10 02:30 EDT (-04:00)  2026-03-10T06:30:00Z',
        '',
      ].join('\n'),
    );
  });

  it('given gap=skip without --explain, when listed, then March 8 is simply absent', async () => {
    const result = await sched(home, ['next', '30 2 * * *', ...SPRING, '--dst-gap', 'skip']);
    expect(
      result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(4, 14)),
    ).toEqual(['2026-03-07', '2026-03-09', '2026-03-10']);
  });

  it('given gap=skip with --json --explain, when run, then the skipped wall time is an instant that does not fire', async () => {
    const result = await sched(home, [
      'next',
      '30 2 * * *',
      ...SPRING,
      '--dst-gap',
      'skip',
      '--explain',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(result.json.dst).toEqual({ gap: 'skip', repeat: 'first' });
    expect(
      result.json.instants.map((instant: { wall: string; fires: boolean }) => [instant.wall, instant.fires]),
    ).toEqual([
      ['2026-03-07T02:30:00', true],
      ['2026-03-08T02:30:00', false],
      ['2026-03-09T02:30:00', true],
      ['2026-03-10T02:30:00', true],
    ]);
    expect(result.json.instants[1]).toMatchObject({
      note: { kind: 'skipped' },
      explanation: 'skipped: 02:30 does not exist on 2026-03-08 (--dst-gap skip)',
      start: null,
    });
  });
});

describe('sched next --explain across the 2026 New York fall-back (subprocess, no daemon)', () => {
  it('given repeat=first (the default), when explained, then the second 01:30 is listed as not run', async () => {
    const result = await sched(home, ['next', '30 1 * * *', ...FALL, '--explain']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'Sat 2026-10-31 01:30 EDT (-04:00)  2026-10-31T05:30:00Z',
        'Sun 2026-11-01 01:30 EDT (-04:00)  2026-11-01T05:30:00Z',
        '  first of two 01:30s (EDT, before the fall-back); the second is not run (--dst-repeat first)',
        'Sun 2026-11-01 01:30 EST (-05:00)  2026-11-01T06:30:00Z  not run',
        '  second 01:30 (EST, after the fall-back); not run, the first already ran (--dst-repeat first)',
        'Mon 2026-11-02 01:30 EST (-05:00)  2026-11-02T06:30:00Z',
        '',
      ].join('\n'),
    );
  });

  it('given repeat=last, when explained, then the first 01:30 is not run and the second runs', async () => {
    const result = await sched(home, ['next', '30 1 * * *', ...FALL, '--dst-repeat', 'last', '--explain']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'Sat 2026-10-31 01:30 EDT (-04:00)  2026-10-31T05:30:00Z',
        'Sun 2026-11-01 01:30 EDT (-04:00)  2026-11-01T05:30:00Z  not run',
        '  first of two 01:30s (EDT, before the fall-back); not run, the second runs instead (--dst-repeat last)',
        'Sun 2026-11-01 01:30 EST (-05:00)  2026-11-01T06:30:00Z',
        '  second of two 01:30s (EST, after the fall-back); runs instead of the first (--dst-repeat last)',
        'Mon 2026-11-02 01:30 EST (-05:00)  2026-11-02T06:30:00Z',
        '',
      ].join('\n'),
    );
  });

  it('given repeat=both, when explained, then both 01:30s run, each marked', async () => {
    const result = await sched(home, ['next', '30 1 * * *', ...FALL, '--dst-repeat', 'both', '--explain']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'Sat 2026-10-31 01:30 EDT (-04:00)  2026-10-31T05:30:00Z',
        'Sun 2026-11-01 01:30 EDT (-04:00)  2026-11-01T05:30:00Z',
        '  first of two 01:30s (EDT, before the fall-back); both run (--dst-repeat both)',
        'Sun 2026-11-01 01:30 EST (-05:00)  2026-11-01T06:30:00Z',
        '  second of two 01:30s (EST, after the fall-back); both run (--dst-repeat both)',
        '',
      ].join('\n'),
    );
  });

  it('given repeat=both without --explain, when listed, then November 1 appears twice, an hour apart', async () => {
    const result = await sched(home, ['next', '30 1 * * *', ...FALL, '--dst-repeat', 'both', '--json']);
    expect(result.json.instants.map((instant: { at: string }) => instant.at)).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T06:30:00.000Z',
    ]);
  });
});

describe('sched next argument and flag errors (subprocess, no daemon)', () => {
  it('given an unknown --dst-gap, when run, then it exits 2 naming the flag and the values it takes', async () => {
    const result = await sched(home, ['next', '30 2 * * *', '--dst-gap', 'later']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: Invalid --dst-gap "later"\.\nHint: Use shift .* or skip/);
  });

  it('given a word that could be a job and no daemon, when run, then it exits 7 saying a job needs the daemon', async () => {
    const result = await sched(home, ['next', 'nightly', '--json']);
    expect(result.code).toBe(7);
    expect(result.json.error).toMatchObject({
      code: 'DAEMON_UNAVAILABLE',
      hint: expect.stringContaining("A job's next runs need the daemon; a cron expression"),
    });
  });

  it('given a macro, when run without a daemon, then it is read as an expression', async () => {
    const result = await sched(home, [
      'next',
      '@daily',
      '--tz',
      'UTC',
      '--from',
      '2026-06-01T12:00:00Z',
      '-n',
      '1',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Tue 2026-06-02 00:00 UTC (+00:00)  2026-06-02T00:00:00Z\n');
  });
});
