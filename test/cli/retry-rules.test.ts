import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

// Timing (Retry-After, linear gaps, deadlines, breakers) is tested in virtual time in
// test/daemon/virtual-retry-rules.test.ts; these cover the flags and what the commands show.
describe('retry rules through the real CLI and daemon', () => {
  const { home, start } = useDaemons(afterEach);
  const jobNames = async (dir: string) =>
    (await sched(dir, ['ls', '--json'])).json.items.map((job: { name: string }) => job.name);

  it.each([
    [['--retry-on', 'abc'], /Invalid --retry-on "abc"/],
    [['--no-retry-on', '2,x'], /Invalid --no-retry-on "2,x"/],
    [['--backoff-type', 'fast'], /Unknown backoff type "fast"/],
    [['--retry-deadline=-5m'], /retry deadline/i],
    [['--retry-on', '3', '--no-retry-on', '3'], /3 is in both --retry-on and --no-retry-on/],
  ])('refuses add %j with exit 2 and a hint, and stores nothing', async (flags, says) => {
    const dir = home();
    await start(dir);
    const result = await sched(dir, ['add', 'x', '--every', '1h', '--retries', '2', ...flags, '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(says);
    expect(result.stderr).toMatch(/Hint: /);
    expect(result.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
    expect(await jobNames(dir)).toEqual([]);
  });

  it('stores the rules, shows them, exports and imports them, and update changes and clears them', async () => {
    const dir = home();
    await start(dir);
    const added = await sched(dir, [
      'add',
      'sync',
      '--every',
      '1h',
      '--retries',
      '3',
      '--backoff-type',
      'linear',
      '--retry-on',
      '75',
      '--no-retry-on',
      '2,3',
      '--retry-deadline',
      '1h',
      '--json',
      '--',
      'true',
    ]);
    expect(added.code).toBe(0);
    const rules = { backoffType: 'linear', retryOn: [75], noRetryOn: [2, 3], deadlineMs: 3_600_000 };
    expect(added.json.retry).toMatchObject(rules);
    expect((await sched(dir, ['show', 'sync'])).stdout).toContain(
      'retry on 75, never on 2,3, until 1h after the first attempt',
    );

    const file = path.join(dir, 'jobs.json');
    expect((await sched(dir, ['export', '-o', file])).code).toBe(0);
    const other = home();
    await start(other);
    expect((await sched(other, ['import', 'json', file, '--yes'])).code).toBe(0);
    expect((await sched(other, ['show', 'sync', '--json'])).json.job.retry).toMatchObject(rules);

    const refused = await sched(dir, ['update', 'sync', '--retry-on', '2']);
    expect(refused.code).toBe(2);
    expect((await sched(dir, ['show', 'sync', '--json'])).json.job.retry).toMatchObject(rules);

    const cleared = await sched(dir, [
      'update',
      'sync',
      '--clear-retry-on',
      '--clear-retry-deadline',
      '--backoff-type',
      'exponential',
      '--json',
    ]);
    expect(cleared.code).toBe(0);
    expect(cleared.json.retry).toEqual({
      maxRetries: 3,
      initialBackoffMs: 10_000,
      factor: 2,
      maxBackoffMs: 3_600_000,
      jitter: true,
      noRetryOn: [2, 3],
    });
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).jobs[0].retry).toMatchObject(rules);
  });

  it('given a run lost to kill -9 past its retry deadline, does not retry it after the restart', async () => {
    const dir = home();
    const first = await start(dir);
    await sched(dir, [
      'add',
      'late',
      '--every',
      '1h',
      '--retries',
      '1',
      '--backoff',
      '0s',
      '--retry-deadline',
      '2s',
      '--',
      'sleep',
      '60',
    ]);
    const { id } = (await sched(dir, ['trigger', 'late', '--json'])).json;
    const started = await waitFor(async () => (await sched(dir, ['logs', id, '--json'])).json.startedAt);
    // The deadline counts from when the attempt started, not from when its loss is noticed.
    await waitFor(async () => Date.now() > started + 2_500);
    first.process.kill('SIGKILL');
    await first.exited;

    await start(dir);
    const lost = await waitFor(async () => {
      const run = (await sched(dir, ['logs', id, '--json'])).json;
      return run.state === 'lost' ? run : null;
    });
    expect(lost.retriedBy).toBeNull();
    expect(lost.error).toMatch(
      /not retried: the retry deadline \(2s after the first attempt started\) would have passed$/,
    );
    expect((await sched(dir, ['history', 'late', '--json'])).json.items).toHaveLength(1);
  });

  it('shows a permanent failure as such in history, logs and why', async () => {
    const server = http.createServer((_request, response) => {
      response.writeHead(404);
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const dir = home();
      await start(dir);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gone`;
      await sched(dir, ['add', 'gone', '--every', '1h', '--http', url, '--retries', '3', '--backoff', '1s']);
      const { id } = (await sched(dir, ['trigger', 'gone', '--json'])).json;
      await waitFor(async () => (await sched(dir, ['logs', id, '--json'])).json.finishedAt !== null);

      expect((await sched(dir, ['history', 'gone'])).stdout).toMatch(/failed \(permanent\)\s+\S+\s+HTTP 404/);
      expect((await sched(dir, ['logs', id])).stderr).toMatch(
        /: failed \(permanent\), HTTP 404, took \d+m?s \(error: PERMANENT \(HTTP 404 is a client error: the same request would fail again\), not retried: HTTP 404 \(expected 2xx\)\)/,
      );
      expect((await sched(dir, ['why', 'gone'])).stdout).toContain(
        'a permanent failure (HTTP 404 is a client error: the same request would fail again), so it was not retried',
      );
      expect((await sched(dir, ['history', 'gone', '--json'])).json.items).toHaveLength(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
