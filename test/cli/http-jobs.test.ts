import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFinalRunState } from '../../src/core/run.js';
import { runWhere } from '../support/daemon-probe.js';
import { makeHome, removeHome, sched, startDaemon, type RunningDaemon } from '../support/sched-harness.js';

interface Seen {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('HTTP jobs against a real local server', () => {
  let home: string;
  let daemon: RunningDaemon;
  let server: http.Server;
  let base: string;
  let refusedUrl: string;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({ path: request.url ?? '', method: request.method ?? '', headers: request.headers, body });
        if (request.url?.startsWith('/ok')) {
          response.writeHead(200, { 'content-type': 'application/json', 'x-answer': '42' });
          response.end('{"ok":true}');
        } else if (request.url?.startsWith('/fail')) {
          response.writeHead(500);
          response.end('broken');
        }
        // /hang never answers.
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    refusedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/nothing`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    home = makeHome();
    daemon = await startDaemon(home);
  });

  afterAll(async () => {
    await daemon.stop('SIGKILL');
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    removeHome(home);
  });

  const finished = (runId: string) => runWhere(home, runId, (run) => isFinalRunState(run.state));

  it('posts the payload with the idempotency and fence headers and keeps status, headers and body', async () => {
    await sched(home, [
      'add',
      'hook',
      '--every',
      '1h',
      '--http',
      `${base}/ok`,
      '--header',
      'X-Team: ops',
      '--payload',
      '{"n":1}',
    ]);
    const triggered = await sched(home, ['trigger', 'hook', '--json']);
    const run = await finished(triggered.json.id);

    expect(run).toMatchObject({ state: 'succeeded', httpStatus: 200, stdoutTail: '{"ok":true}' });
    expect(run.responseHeaders).toMatchObject({ 'x-answer': '42' });
    const request = seen.find((entry) => entry.headers['idempotency-key'] === triggered.json.id)!;
    expect(request).toMatchObject({ method: 'POST', path: '/ok', body: '{"n":1}' });
    expect(request.headers).toMatchObject({
      'x-team': 'ops',
      'x-sched-fence': String(run.fence),
      'content-type': 'application/json',
    });
  });

  it('records a 500 as failed with the status', async () => {
    await sched(home, ['add', 'broken-hook', '--every', '1h', '--http', `${base}/fail`]);
    const run = await finished((await sched(home, ['trigger', 'broken-hook', '--json'])).json.id);
    expect(run).toMatchObject({ state: 'failed', httpStatus: 500 });
    expect(run.error).toMatch(/500/);
  });

  it('times out a request that hangs past the job timeout', async () => {
    await sched(home, ['add', 'slow-hook', '--every', '1h', '--timeout', '1s', '--http', `${base}/hang`]);
    const run = await finished((await sched(home, ['trigger', 'slow-hook', '--json'])).json.id);
    expect(run.state).toBe('timed_out');
  });

  it('records a refused connection as failed and opens the breaker after the threshold', async () => {
    await sched(home, [
      'add',
      'down-hook',
      '--every',
      '1h',
      '--http',
      refusedUrl,
      '--breaker-failures',
      '2',
      '--breaker-cooldown',
      '5m',
    ]);
    const first = await finished((await sched(home, ['trigger', 'down-hook', '--json'])).json.id);
    expect(first.state).toBe('failed');
    expect(first.error).toMatch(/ECONNREFUSED|refused/);
    await finished((await sched(home, ['trigger', 'down-hook', '--json'])).json.id);

    const shown = await sched(home, ['show', 'down-hook', '--json']);
    expect(shown.json.breaker).toMatchObject({ state: 'open', consecutiveFailures: 2 });
    const fast = await finished((await sched(home, ['trigger', 'down-hook', '--json'])).json.id);
    expect(fast.error).toMatch(/^CIRCUIT_OPEN/);
    expect((await sched(home, ['show', 'down-hook'])).stdout).toMatch(/open/i);
  });

  it('fails fast while the breaker of an origin is open and closes it after a half-open success', async () => {
    let failing = true;
    const flappy = http.createServer((request, response) => {
      response.writeHead(failing ? 503 : 200);
      response.end();
    });
    let hits = 0;
    flappy.on('request', () => (hits += 1));
    await new Promise<void>((resolve) => flappy.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(flappy.address() as AddressInfo).port}/`;
    try {
      await sched(home, [
        'add',
        'flappy',
        '--every',
        '1h',
        '--http',
        url,
        '--breaker-failures',
        '3',
        '--breaker-cooldown',
        '8s',
      ]);
      for (let index = 0; index < 3; index += 1)
        await finished((await sched(home, ['trigger', 'flappy', '--json'])).json.id);
      // The breaker opened here; the next trigger must come within the cooldown, even on a loaded machine.
      const openedAt = Date.now();
      expect(hits).toBe(3);
      const fast = await finished((await sched(home, ['trigger', 'flappy', '--json'])).json.id);
      expect(fast.error).toMatch(/^CIRCUIT_OPEN/);
      expect(hits).toBe(3);

      failing = false;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, openedAt + 8_100 - Date.now())));
      const trial = await finished((await sched(home, ['trigger', 'flappy', '--json'])).json.id);
      expect(trial.state).toBe('succeeded');
      expect(hits).toBe(4);
      expect((await sched(home, ['show', 'flappy', '--json'])).json.breaker).toMatchObject({
        state: 'closed',
        consecutiveFailures: 0,
      });
    } finally {
      flappy.closeAllConnections();
      await new Promise<void>((resolve) => flappy.close(() => resolve()));
    }
  });
});
