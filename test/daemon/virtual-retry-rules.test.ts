import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { useVirtualDaemons, type RunSummary, type VirtualDaemon } from '../support/virtual-daemon.js';

/** A real HTTP server on loopback that answers each request with the next reply (the last one repeats). */
async function replying(
  replies: { status: number; headers?: Record<string, string> }[],
): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((_request, response) => {
    const reply = replies[Math.min(hits, replies.length - 1)]!;
    hits += 1;
    response.writeHead(reply.status, reply.headers);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const servers: { close: () => Promise<void> }[] = [];
async function server(replies: Parameters<typeof replying>[0]) {
  const started = await replying(replies);
  servers.push(started);
  return started;
}

/** Triggers the job, lets `forMs` of virtual time pass, and returns its runs, oldest first. */
async function triggeredRuns(daemon: VirtualDaemon, job: string, forMs: number, stepMs: number) {
  await daemon.call('job.trigger', { ref: job });
  await daemon.idle();
  await daemon.run(forMs, stepMs);
  return daemon.runsOf(job);
}

/** Delay between an attempt's end and the next attempt's due time. */
function gaps(runs: readonly RunSummary[]): number[] {
  return runs.slice(1).map((run, index) => run.dueAt - runs[index]!.finishedAt!);
}

describe('retry rules in virtual time', () => {
  const { start } = useVirtualDaemons(afterEach);
  afterEach(async () => {
    for (const started of servers.splice(0)) await started.close();
  });

  it.each([401, 404])(
    'given an HTTP job answered %i, makes one attempt and records it permanent with the reason',
    async (status) => {
      const daemon = await start();
      const target = await server([{ status }]);
      await daemon.add({ name: 'hook', every: '1h', http: target.url, retries: 3, backoff: '1s' });

      const runs = await triggeredRuns(daemon, 'hook', 30_000, 1_000);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ state: 'failed', httpStatus: status, retriedBy: null });
      expect(runs[0]!.error).toBe(
        `PERMANENT (HTTP ${status} is a client error: the same request would fail again), not retried: HTTP ${status} (expected 2xx)`,
      );
      expect(target.hits()).toBe(1);
      expect(await daemon.why('hook')).toContain(
        `attempt 1 failed after 0ms, a permanent failure (HTTP ${status} is a client error: the same request would fail again), so it was not retried`,
      );
    },
  );

  it('given a command that does not exist, makes one attempt and records it permanent', async () => {
    const daemon = await start();
    await daemon.add({
      name: 'missing',
      every: '1h',
      argv: ['/nonexistent/sched-no-such-program'],
      retries: 3,
    });

    const runs = await triggeredRuns(daemon, 'missing', 60_000, 5_000);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.error).toMatch(
      /^PERMANENT \(the command does not exist\), not retried: \/nonexistent\/sched-no-such-program: not found in .* \(ENOENT\)$/,
    );
    expect(await daemon.why('missing')).toContain('a permanent failure (the command does not exist)');
  });

  it('given a 503 with Retry-After: 2, starts the next attempt exactly 2s later instead of its backoff', async () => {
    const daemon = await start();
    const target = await server([{ status: 503, headers: { 'Retry-After': '2' } }, { status: 200 }]);
    await daemon.add({
      name: 'busy',
      every: '1h',
      http: target.url,
      retries: 2,
      backoff: '10m',
      jitter: false,
    });

    await daemon.call('job.trigger', { ref: 'busy' });
    await daemon.idle();
    const [first, waiting] = await daemon.runsOf('busy');
    expect(waiting).toMatchObject({ attempt: 2, state: 'scheduled', dueAt: first!.finishedAt! + 2_000 });
    await daemon.clock.advance(1_999);
    await daemon.idle();
    expect((await daemon.runsOf('busy'))[1]!.state).toBe('scheduled');
    await daemon.clock.advance(1);
    await daemon.idle();

    const retried = (await daemon.runsOf('busy'))[1]!;
    expect(retried).toMatchObject({ state: 'succeeded', startedAt: first!.finishedAt! + 2_000 });
  });

  it('given --backoff-type linear, waits equal steps longer each time', async () => {
    const daemon = await start();
    await daemon.add({
      name: 'steps',
      every: '1h',
      argv: ['false'],
      retries: 3,
      backoff: '1s',
      backoffType: 'linear',
      jitter: false,
    });

    const runs = await triggeredRuns(daemon, 'steps', 7_000, 250);
    expect(runs.map((run) => [run.attempt, run.state])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
      [4, 'failed'],
    ]);
    expect(gaps(runs)).toEqual([1_000, 2_000, 3_000]);
  });

  it('given --retry-deadline, schedules no retry past it after the first attempt started', async () => {
    const daemon = await start();
    await daemon.add({
      name: 'bounded',
      every: '1h',
      argv: ['false'],
      retries: 10,
      backoff: '1m',
      backoffFactor: 1,
      jitter: false,
      retryDeadline: '150s',
    });

    const runs = await triggeredRuns(daemon, 'bounded', 10 * 60_000, 10_000);
    expect(runs.map((run) => run.attempt)).toEqual([1, 2, 3]);
    expect(runs.at(-1)).toMatchObject({ state: 'failed', retriedBy: null });
    expect(runs.at(-1)!.error).toBe(
      'exited with code 1; not retried: the retry deadline (2m30s after the first attempt started) would have passed',
    );
  });

  it('given --no-retry-on 3, does not retry a command that exits 3', async () => {
    const daemon = await start();
    await daemon.add({
      name: 'three',
      every: '1h',
      shell: 'exit 3',
      retries: 3,
      backoff: '1s',
      noRetryOn: '2,3',
    });

    const runs = await triggeredRuns(daemon, 'three', 30_000, 1_000);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.error).toBe(
      'PERMANENT (exit 3 is listed in --no-retry-on), not retried: exited with code 3',
    );
  });

  it('given --retry-on 409, retries an HTTP job answered 409', async () => {
    const daemon = await start();
    const target = await server([{ status: 409 }, { status: 200 }]);
    await daemon.add({
      name: 'conflict',
      every: '1h',
      http: target.url,
      retries: 1,
      backoff: '1s',
      retryOn: '409',
    });

    const runs = await triggeredRuns(daemon, 'conflict', 3_000, 250);
    expect(runs.map((run) => [run.attempt, run.state, run.httpStatus])).toEqual([
      [1, 'failed', 409],
      [2, 'succeeded', 200],
    ]);
    expect(target.hits()).toBe(2);
  });

  it('given a retry failed fast by an open breaker, waits for the half-open instant and does not spend an attempt', async () => {
    const daemon = await start();
    const target = await server([{ status: 500 }]);
    await daemon.add({
      name: 'guarded',
      every: '1h',
      http: target.url,
      retries: 1,
      backoff: '1s',
      jitter: false,
      breakerFailures: 1,
      breakerCooldown: '30s',
    });

    const [first, fast, waiting] = await triggeredRuns(daemon, 'guarded', 2_000, 500);
    expect(fast).toMatchObject({ attempt: 2, state: 'failed' });
    expect(fast!.error).toMatch(/^CIRCUIT_OPEN: breaker for .* is open/);
    // The breaker opened when attempt 1 failed; its cool-down ends 30s later.
    expect(waiting).toMatchObject({ attempt: 3, state: 'scheduled', dueAt: first!.finishedAt! + 30_000 });

    await daemon.run(30_000, 1_000);
    const runs = await daemon.runsOf('guarded');
    expect(runs.map((run) => [run.attempt, run.state, run.httpStatus])).toEqual([
      [1, 'failed', 500],
      [2, 'failed', null],
      [3, 'failed', 500],
    ]);
    expect(target.hits()).toBe(2);
  });
});
