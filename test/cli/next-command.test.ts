import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../support/child-env.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const bin = path.join(projectRoot, 'bin', 'run.js');

interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function sched(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: projectRoot, env: childEnv({ NO_COLOR: '1', ...env }), timeout: 30_000 },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ exitCode, stdout, stderr });
      },
    );
  });
}

beforeAll(() => {
  if (!existsSync(path.join(projectRoot, 'dist', 'commands', 'next.js'))) {
    throw new Error('dist/ is missing: run `npm run build` before these tests.');
  }
});

describe('sched next (subprocess, no daemon)', () => {
  it('given --from as a bare date, when run, then it starts from that local midnight in the zone', async () => {
    const result = await sched([
      'next',
      '0 0 * * *',
      '--tz',
      'Europe/Berlin',
      '--from',
      '2026-11-28',
      '-n',
      '2',
      '--json',
    ]);
    expect(result.exitCode).toBe(0);
    const output = JSON.parse(result.stdout) as { instants: { local: string }[] };
    expect(output.instants.map((instant) => instant.local)).toEqual([
      '2026-11-28T00:00:00+01:00',
      '2026-11-29T00:00:00+01:00',
    ]);
  });

  it('given weekdays at 09:00 in New York from a Friday, when run with --json, then it lists five UTC instants across the DST change', async () => {
    const result = await sched([
      'next',
      '0 9 * * 1-5',
      '--tz',
      'America/New_York',
      '--from',
      '2026-03-06T00:00:00Z',
      '-n',
      '5',
      '--json',
    ]);
    expect(result.exitCode).toBe(0);
    const output = JSON.parse(result.stdout) as {
      expression: string;
      timezone: string;
      instants: { at: string; epochMs: number; local: string }[];
    };
    expect(output.expression).toBe('0 9 * * 1-5');
    expect(output.timezone).toBe('America/New_York');
    expect(output.instants.map((instant) => instant.at)).toEqual([
      '2026-03-06T14:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
      '2026-03-10T13:00:00.000Z',
      '2026-03-11T13:00:00.000Z',
      '2026-03-12T13:00:00.000Z',
    ]);
    expect(output.instants[0]).toEqual({
      at: '2026-03-06T14:00:00.000Z',
      epochMs: Date.UTC(2026, 2, 6, 14),
      local: '2026-03-06T09:00:00-05:00',
      // Added with time policies; the three fields above are unchanged.
      wall: '2026-03-06T09:00:00',
      fires: true,
      note: null,
      explanation: null,
      start: null,
    });
    expect(output.instants[1]?.local).toBe('2026-03-09T09:00:00-04:00');
  });

  it('given the same schedule without --json, when run, then each line shows the local time with offset and UTC', async () => {
    const result = await sched([
      'next',
      '0 9 * * 1-5',
      '--tz',
      'America/New_York',
      '--from',
      '2026-03-06T00:00:00Z',
      '-n',
      '2',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      'Fri 2026-03-06 09:00 EST (-05:00)  2026-03-06T14:00:00Z\nMon 2026-03-09 09:00 EDT (-04:00)  2026-03-09T13:00:00Z\n',
    );
  });

  it('given an invalid expression, when run with --json, then it exits 2 with the JSON error shape', async () => {
    const result = await sched(['next', 'not a cron', '--json']);
    expect(result.exitCode).toBe(2);
    const output = JSON.parse(result.stdout) as { error: Record<string, unknown> };
    expect(output.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(Object.keys(output.error).sort()).toEqual(['code', 'details', 'hint', 'message', 'timestamp']);
    expect(Number.isNaN(Date.parse(String(output.error.timestamp)))).toBe(false);
  });

  it('given an unknown zone, when run without --json, then it prints one error line and a hint to stderr and exits 2', async () => {
    const result = await sched(['next', '0 9 * * *', '--tz', 'Mars/Olympus_Mons']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error: .+\n(Hint: .+\n)?$/);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('given -n above the maximum, when run with --json, then it is a VALIDATION_FAILED error, exit 2', async () => {
    const result = await sched(['next', '0 9 * * *', '-n', '5000', '--json']);
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });
});

describe('a command that needs the daemon (subprocess)', () => {
  let home: string;

  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'sched-cli-'));
  });

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('given no daemon in SCHED_HOME, when `sched ls --json` runs, then it exits 7 with DAEMON_UNAVAILABLE and a hint', async () => {
    const result = await sched(['ls', '--json'], { SCHED_HOME: home });
    expect(result.exitCode).toBe(7);
    const output = JSON.parse(result.stdout) as { error: { code: string; hint: string } };
    expect(output.error.code).toBe('DAEMON_UNAVAILABLE');
    expect(output.error.hint).toMatch(/sched daemon run/);
  });

  it('given no daemon, when `sched ls` runs for a person, then stderr has the error and the hint, no stack', async () => {
    const result = await sched(['ls'], { SCHED_HOME: home });
    expect(result.exitCode).toBe(7);
    expect(result.stderr).toMatch(/^Error: The sched daemon is not running.*\nHint: .*sched daemon run.*\n$/);
  });
});
