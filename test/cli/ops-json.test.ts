import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, removeHome, sched, startDaemon, type RunningDaemon } from '../support/sched-harness.js';

let source: { home: string; daemon: RunningDaemon };
let target: { home: string; daemon: RunningDaemon };

async function start(prefix: string) {
  const home = makeHome(prefix);
  return { home, daemon: await startDaemon(home) };
}

const ADDS: string[][] = [
  [
    'add',
    'nightly',
    '--cron',
    '0 3 * * *',
    '--tz',
    'Europe/Berlin',
    '--timeout',
    '90s',
    '--retries',
    '3',
    '--backoff',
    '5s',
    '--backoff-factor',
    '1.5',
    '--backoff-max',
    '2m',
    '--no-backoff-jitter',
    '--label',
    'team=ops',
    '--description',
    'the nightly backup',
    '--env',
    'MODE=full',
    '--cwd',
    '/tmp',
    '--payload',
    '{"x":[1,2]}',
    '--',
    './backup.sh',
    '--full',
  ],
  ['add', 'tick', '--every', '90s', '--shell', 'echo hi | wc -c'],
  ['add', 'launch', '--at', '2031-01-01T10:00', '--tz', 'Asia/Tokyo', '--', '/bin/true'],
  [
    'add',
    'hook',
    '--cron',
    '*/15 * * * *',
    '--http',
    'https://example.com/hook',
    '--method',
    'PUT',
    '--header',
    'Authorization: Bearer x',
    '--expect',
    '200,204',
    '--breaker-failures',
    '3',
    '--breaker-cooldown',
    '1m',
    '--payload',
    '{"a":1}',
  ],
  ['add', 'weekly', '--cron', '30 0 9 * * 1', '--', '/bin/echo', 'it is monday'],
];

beforeAll(async () => {
  [source, target] = await Promise.all([start('sched-ops-json-a-'), start('sched-ops-json-b-')]);
  for (const args of ADDS) expect((await sched(source.home, args)).code).toBe(0);
  expect((await sched(source.home, ['pause', 'weekly'])).code).toBe(0);
});

afterAll(async () => {
  await Promise.all([source.daemon.stop(), target.daemon.stop()]);
  removeHome(source.home);
  removeHome(target.home);
});

describe('sched export --format json and sched import json', () => {
  // --reveal: the env, header and payload values travel in clear, as a move to another host needs.
  it('round-trip every definition through a fresh daemon', async () => {
    const file = path.join(source.home, 'jobs.json');
    const exported = await sched(source.home, ['export', '--reveal', '--output', file]);
    const imported = await sched(target.home, ['import', 'json', file, '--yes', '--json']);
    const again = await sched(target.home, ['export', '--reveal', '--format', 'json']);

    expect(exported.code).toBe(0);
    expect(imported.code).toBe(0);
    expect(imported.json.jobs.map((job: { outcome: string }) => job.outcome)).toEqual(
      Array(5).fill('created'),
    );
    const first = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(first.jobs).toHaveLength(5);
    expect(first.paused).toEqual(['weekly']);
    // Byte for byte the same, the interval job's anchor included.
    expect(JSON.stringify(again.json, null, 2)).toBe(JSON.stringify(first, null, 2));
  });

  it('keeps a paused job paused', async () => {
    const result = await sched(target.home, ['ls', '--json', '--status', 'paused']);
    expect(result.json.items.map((job: { name: string }) => job.name)).toEqual(['weekly']);
  });

  // Without --reveal: the masked secret values are not compared, and the jobs keep their own.
  it('leaves the jobs alone when the same export is imported again', async () => {
    const exported = await sched(source.home, ['export']);
    const result = await sched(target.home, ['import', 'json', '-', '--yes', '--json'], {
      input: exported.stdout,
    });

    expect(result.code).toBe(0);
    expect(result.json.jobs.map((job: { action: string }) => job.action)).toEqual(Array(5).fill('unchanged'));
  });

  it('reports a name held by a different job, and exits 4', async () => {
    const exported = await sched(source.home, ['export', '--json']);
    const changed = { ...exported.json, jobs: [{ ...exported.json.jobs[0], description: 'changed' }] };
    const result = await sched(target.home, ['import', 'json', '-', '--yes'], {
      input: JSON.stringify(changed),
    });

    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/conflict\s+nightly/);
    expect(result.stdout).toContain('exists with another definition');
  });

  it('names the place in the file that is not a job', async () => {
    const broken = { sched: 'jobs', version: 1, jobs: [{ name: 'x', schedule: { kind: 'sometimes' } }] };
    const result = await sched(target.home, ['import', 'json', '-', '--dry-run'], {
      input: JSON.stringify(broken),
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/standard input: jobs\[0\]\.\w+/);
  });
});
