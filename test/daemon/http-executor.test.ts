import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpTarget } from '../../src/core/job.js';
import type { RunOutcome } from '../../src/core/run.js';
import { HttpExecutor, type HttpExecution } from '../../src/daemon/executor/http-executor.js';
import { systemClock } from '../../src/daemon/clock.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface TestServer {
  url: string;
  origin: string;
  /** Requests the handler saw, in order. */
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  connections: number;
  handler: Handler;
  close(): Promise<void>;
}

const servers: Server[] = [];
const executors: HttpExecutor[] = [];
let runCounter = 0;

async function startServer(handler: Handler): Promise<TestServer> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const state: TestServer = {
    url: `${origin}/hook`,
    origin,
    requests: [],
    connections: 0,
    handler,
    close: () => closeServer(server),
  };
  server.on('connection', () => state.connections++);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      state.handler(req, res, body);
    });
  });
  return state;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on: bind one, then give it back. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/hook`;
}

function newExecutor(options: ConstructorParameters<typeof HttpExecutor>[0] = {}): HttpExecutor {
  const executor = new HttpExecutor(options);
  executors.push(executor);
  return executor;
}

function target(url: string, fields: Partial<HttpTarget> = {}): HttpTarget {
  return {
    kind: 'http',
    method: 'POST',
    url,
    headers: {},
    expect: { kind: 'class', hundreds: 2 },
    breaker: { failureThreshold: 5, cooldownMs: 30_000 },
    ...fields,
  };
}

function execution(url: string, fields: Partial<HttpExecution> = {}, targetFields: Partial<HttpTarget> = {}) {
  return {
    runId: `run-${++runCounter}`,
    fence: 7,
    target: target(url, targetFields),
    body: null,
    timeoutMs: 10_000,
    ...fields,
  } satisfies HttpExecution;
}

function nextFinished(executor: HttpExecutor, runId: string): Promise<RunOutcome> {
  return new Promise((resolve) => executor.on('finished', (id, outcome) => id === runId && resolve(outcome)));
}

function nextStarted(executor: HttpExecutor, runId: string): Promise<number | null> {
  return new Promise((resolve) => executor.on('started', (id, pid) => id === runId && resolve(pid)));
}

async function runToEnd(executor: HttpExecutor, run: HttpExecution): Promise<RunOutcome> {
  const finished = nextFinished(executor, run.runId);
  executor.run(run);
  return finished;
}

function respond(status: number, body = '', headers: Record<string, string | string[]> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

/** Resolves when the handler's request arrives, and never answers it. */
function hang(): { handler: Handler; arrived: Promise<IncomingMessage> } {
  let signal!: (req: IncomingMessage) => void;
  const arrived = new Promise<IncomingMessage>((resolve) => (signal = resolve));
  return { handler: (req) => signal(req), arrived };
}

afterEach(async () => {
  await Promise.all(executors.splice(0).map((executor) => executor.stop()));
  await Promise.all(servers.splice(0).map(closeServer));
});

describe('HttpExecutor responses', () => {
  it('Given a 200 response, when the run ends, then it succeeded with status, body and headers kept, credentials masked', async () => {
    const server = await startServer(
      respond(200, '{"ok":true}', {
        'X-Reply': 'yes',
        'X-Many': ['a=1', 'b=2'],
        'Set-Cookie': ['session=1', 'b=2'],
        Authorization: 'Bearer 3',
      }),
    );
    const executor = newExecutor();
    const outcome = await runToEnd(executor, execution(server.url));
    expect(outcome).toMatchObject({
      state: 'succeeded',
      httpStatus: 200,
      exitCode: null,
      signal: null,
      error: null,
      stdoutTail: '{"ok":true}',
      stderrTail: '',
    });
    expect(outcome.responseHeaders).toMatchObject({
      'x-reply': 'yes',
      'x-many': 'a=1, b=2',
      'set-cookie': '•••',
      authorization: '•••',
    });
  });

  it('Given a run, when the request is dispatched, then started comes with a null pid before finished', async () => {
    const server = await startServer(respond(204));
    const executor = newExecutor();
    const events: string[] = [];
    executor.on('started', (_id, pid) => events.push(`started:${String(pid)}`));
    await runToEnd(executor, execution(server.url));
    events.push('finished');
    expect(events).toEqual(['started:null', 'finished']);
  });

  it('Given a 500 response and the default 2xx expectation, when the run ends, then it failed naming both', async () => {
    const server = await startServer(respond(500, 'boom'));
    const outcome = await runToEnd(newExecutor(), execution(server.url));
    expect(outcome).toMatchObject({
      state: 'failed',
      httpStatus: 500,
      error: 'HTTP 500 (expected 2xx)',
      stdoutTail: 'boom',
    });
  });

  it('Given --expect 200,204, when the server answers 204, then the run succeeded', async () => {
    const server = await startServer(respond(204));
    const run = execution(server.url, {}, { expect: { kind: 'codes', codes: [200, 204] } });
    expect(await runToEnd(newExecutor(), run)).toMatchObject({ state: 'succeeded', httpStatus: 204 });
  });

  it('Given --expect 200,204, when the server answers 201, then the run failed though 201 is a 2xx', async () => {
    const server = await startServer(respond(201));
    const run = execution(server.url, {}, { expect: { kind: 'codes', codes: [200, 204] } });
    expect(await runToEnd(newExecutor(), run)).toMatchObject({
      state: 'failed',
      httpStatus: 201,
      error: 'HTTP 201 (expected 200,204)',
    });
  });

  it('Given a 1 MiB response, when the run ends, then only the first 64 KiB of the body are kept', async () => {
    const body = Buffer.alloc(1024 * 1024, 'a');
    body.write('HEAD', 0);
    const server = await startServer(respond(200, body.toString('latin1')));
    const outcome = await runToEnd(newExecutor(), execution(server.url));
    expect(outcome.state).toBe('succeeded');
    expect(Buffer.byteLength(outcome.stdoutTail)).toBe(64 * 1024);
    expect(outcome.stdoutTail.startsWith('HEADaaa')).toBe(true);
  });
  it('Given a body whose 64 KiB cut splits a character, when it is kept, then the partial character is dropped', async () => {
    const server = await startServer(respond(200, 'a' + 'é'.repeat(40_000)));
    const outcome = await runToEnd(newExecutor(), execution(server.url));
    expect(outcome.stdoutTail).toBe('a' + 'é'.repeat(32_767));
  });
});

describe('HttpExecutor requests', () => {
  it('Given a run, when it reaches the server, then Idempotency-Key carries the run id and X-Sched-Fence the fence', async () => {
    const server = await startServer(respond(200));
    const run = execution(server.url, { fence: 42 });
    await runToEnd(newExecutor(), run);
    expect(server.requests[0]?.headers).toMatchObject({
      'idempotency-key': run.runId,
      'x-sched-fence': '42',
    });
  });

  it('Given a URL with a query, when its runs are sent, then each reaches the server with its path and query', async () => {
    const server = await startServer(respond(204));
    const executor = newExecutor();
    await runToEnd(executor, execution(`${server.url}?team=a%20b&n=1`));
    await runToEnd(executor, execution(`${server.url}?team=a%20b&n=1`));
    expect(server.requests.map((request) => request.url)).toEqual([
      '/hook?team=a%20b&n=1',
      '/hook?team=a%20b&n=1',
    ]);
  });

  it('Given a JSON payload, when it is sent, then the body and an application/json content type reach the server', async () => {
    const server = await startServer(respond(200));
    const run = execution(server.url, { body: '{"greeting":"hello"}' }, { method: 'PUT' });
    await runToEnd(newExecutor(), run);
    expect(server.requests[0]).toMatchObject({
      method: 'PUT',
      url: '/hook',
      body: '{"greeting":"hello"}',
      headers: { 'content-type': 'application/json' },
    });
  });

  it("Given the target's own headers including a content type, when it is sent, then they reach the server unchanged", async () => {
    const server = await startServer(respond(200));
    const headers = { Authorization: 'Bearer t0k', 'content-type': 'application/vnd.sched+json' };
    await runToEnd(newExecutor(), execution(server.url, { body: '{}' }, { headers }));
    expect(server.requests[0]?.headers).toMatchObject({
      authorization: 'Bearer t0k',
      'content-type': 'application/vnd.sched+json',
    });
  });

  it('Given a target header that tries to set the fence, when it is sent, then the run’s own fence wins', async () => {
    const server = await startServer(respond(200));
    await runToEnd(
      newExecutor(),
      execution(server.url, { fence: 3 }, { headers: { 'x-sched-fence': '999' } }),
    );
    expect(server.requests[0]?.headers['x-sched-fence']).toBe('3');
  });

  it('Given several sequential runs to one origin, when they complete, then they share one keep-alive connection', async () => {
    const server = await startServer(respond(200, 'ok'));
    const executor = newExecutor();
    for (let i = 0; i < 4; i++) {
      expect((await runToEnd(executor, execution(server.url))).state).toBe('succeeded');
      // undici hands the connection back to its pool a tick after the body ends; a run dispatched in that
      // very tick would open a second connection (real runs of one job are never that close together).
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(server.requests).toHaveLength(4);
    expect(server.connections).toBe(1);
  });
});

describe('HttpExecutor failures', () => {
  it('Given nothing listening, when the run ends, then it failed naming ECONNREFUSED and the origin', async () => {
    const url = await refusedUrl();
    const outcome = await runToEnd(newExecutor(), execution(url));
    expect(outcome).toMatchObject({
      state: 'failed',
      httpStatus: null,
      error: `connection refused (ECONNREFUSED) to ${new URL(url).origin}`,
    });
  });

  it('Given a server that never answers, when the timeout passes, then the run timed out and the server sees the connection closed', async () => {
    const { handler, arrived } = hang();
    const server = await startServer(handler);
    const outcome = await runToEnd(newExecutor(), execution(server.url, { timeoutMs: 1_000 }));
    expect(outcome).toMatchObject({ state: 'timed_out', error: 'timed out after 1s' });
    const req = await arrived;
    await new Promise<void>((resolve) =>
      req.socket.destroyed ? resolve() : req.socket.once('close', resolve),
    );
    expect(req.socket.destroyed).toBe(true);
  });

  it('Given a request in flight, when it is killed, then the run is cancelled with the reason', async () => {
    const { handler, arrived } = hang();
    const server = await startServer(handler);
    const executor = newExecutor();
    const run = execution(server.url, { timeoutMs: null });
    const finished = nextFinished(executor, run.runId);
    executor.run(run);
    await arrived;
    expect(executor.runningIds()).toEqual([run.runId]);
    expect(executor.kill(run.runId, 'cancelled by alice')).toBe(true);
    expect(await finished).toMatchObject({ state: 'cancelled', error: 'cancelled by alice' });
    expect(executor.runningCount()).toBe(0);
  });

  it('Given no such run, when it is killed, then kill reports false', () => {
    expect(newExecutor().kill('run-that-never-was', 'why')).toBe(false);
  });

  it('Given a request in flight, when the executor stops, then the run is cancelled with the stop reason', async () => {
    const { handler, arrived } = hang();
    const server = await startServer(handler);
    const executor = newExecutor();
    const run = execution(server.url, { timeoutMs: null });
    const finished = nextFinished(executor, run.runId);
    executor.run(run);
    await arrived;
    await executor.stop({ killReason: 'daemon shutting down' });
    expect(await finished).toMatchObject({ state: 'cancelled', error: 'daemon shutting down' });
  });
  it('Given a body that stalls halfway, when the timeout passes, then the run timed out', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    const outcome = await runToEnd(newExecutor(), execution(server.url, { timeoutMs: 300 }));
    expect(outcome).toMatchObject({ state: 'timed_out', error: 'timed out after 300ms' });
  });

  it('Given a stopped executor, when a run comes, then it is reported lost without a request', async () => {
    const server = await startServer(respond(200));
    const executor = newExecutor();
    await executor.stop();
    const outcome = await runToEnd(executor, execution(server.url));
    expect(outcome).toMatchObject({ state: 'lost', error: 'http executor is stopped' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('HttpExecutor circuit breaker', () => {
  const T0 = Date.UTC(2030, 0, 1);
  const breaker = { failureThreshold: 5, cooldownMs: 30_000 };

  async function openBreaker(
    server: TestServer,
  ): Promise<{ executor: HttpExecutor; clock: { now: number } }> {
    const clock = { now: T0 };
    const executor = newExecutor({ clock: { ...systemClock, now: () => clock.now } });
    server.handler = respond(500);
    for (let i = 0; i < 5; i++) {
      expect((await runToEnd(executor, execution(server.url, {}, { breaker }))).state).toBe('failed');
    }
    return { executor, clock };
  }

  it('Given an origin never called, when its breaker is asked for, then it is closed with no failures', () => {
    expect(newExecutor().breakerStatus('http://127.0.0.1:9/x')).toEqual({
      origin: 'http://127.0.0.1:9',
      state: 'closed',
      consecutiveFailures: 0,
      openedAt: null,
      retryAt: null,
    });
  });

  it('Given four failures, when the breaker is asked for, then it is still closed and counting', async () => {
    const server = await startServer(respond(500));
    const executor = newExecutor();
    for (let i = 0; i < 4; i++) await runToEnd(executor, execution(server.url));
    expect(executor.breakerStatus(server.url)).toMatchObject({ state: 'closed', consecutiveFailures: 4 });
  });

  it('Given five consecutive failures, when a sixth run comes, then it fails fast with CIRCUIT_OPEN and never reaches the server', async () => {
    const server = await startServer(respond(500));
    const { executor, clock } = await openBreaker(server);
    expect(executor.breakerStatus(server.url)).toEqual({
      origin: server.origin,
      state: 'open',
      consecutiveFailures: 5,
      openedAt: T0,
      retryAt: T0 + 30_000,
    });
    clock.now = T0 + 29_999;
    const outcome = await runToEnd(executor, execution(server.url, {}, { breaker }));
    expect(outcome).toMatchObject({ state: 'failed', httpStatus: null });
    expect(outcome.error).toBe(
      `CIRCUIT_OPEN: breaker for ${server.origin} is open after 5 consecutive failures; ` +
        `half-open at ${new Date(T0 + 30_000).toISOString()}`,
    );
    expect(server.requests).toHaveLength(5);
  });

  it('Given an open breaker past its cool-down, when the trial succeeds, then the breaker closes', async () => {
    const server = await startServer(respond(500));
    const { executor, clock } = await openBreaker(server);
    clock.now = T0 + 30_000;
    server.handler = respond(200);
    expect((await runToEnd(executor, execution(server.url, {}, { breaker }))).state).toBe('succeeded');
    expect(server.requests).toHaveLength(6);
    expect(executor.breakerStatus(server.url)).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('Given an open breaker past its cool-down, when the trial fails, then it opens again from that moment', async () => {
    const server = await startServer(respond(500));
    const { executor, clock } = await openBreaker(server);
    clock.now = T0 + 31_000;
    expect((await runToEnd(executor, execution(server.url, {}, { breaker }))).state).toBe('failed');
    expect(executor.breakerStatus(server.url)).toEqual({
      origin: server.origin,
      state: 'open',
      consecutiveFailures: 6,
      openedAt: T0 + 31_000,
      retryAt: T0 + 61_000,
    });
  });

  it('Given a half-open trial in flight, when another run comes, then it fails fast and the breaker reads half_open', async () => {
    const server = await startServer(respond(500));
    const { executor, clock } = await openBreaker(server);
    clock.now = T0 + 30_000;
    const { handler, arrived } = hang();
    server.handler = handler;
    const trial = execution(server.url, { timeoutMs: null }, { breaker });
    const trialFinished = nextFinished(executor, trial.runId);
    executor.run(trial);
    await arrived;
    expect(executor.breakerStatus(server.url)).toMatchObject({ state: 'half_open', retryAt: null });
    const other = await runToEnd(executor, execution(server.url, {}, { breaker }));
    expect(other.error).toMatch(/^CIRCUIT_OPEN: breaker for .* is half-open/);
    expect(server.requests).toHaveLength(6);
    executor.kill(trial.runId, 'test over');
    expect((await trialFinished).state).toBe('cancelled');
  });

  it('Given a half-open trial, when it is killed, then the breaker is open again and the next run becomes the trial', async () => {
    const server = await startServer(respond(500));
    const { executor, clock } = await openBreaker(server);
    clock.now = T0 + 30_000;
    const { handler, arrived } = hang();
    server.handler = handler;
    const trial = execution(server.url, { timeoutMs: null }, { breaker });
    const trialFinished = nextFinished(executor, trial.runId);
    executor.run(trial);
    await arrived;
    executor.kill(trial.runId, 'cancelled by alice');
    await trialFinished;
    expect(executor.breakerStatus(server.url)).toMatchObject({ state: 'open', openedAt: T0 });
    server.handler = respond(200);
    expect((await runToEnd(executor, execution(server.url, {}, { breaker }))).state).toBe('succeeded');
  });

  it('Given a request in flight, when it is killed, then the breaker does not count it as a failure', async () => {
    const { handler, arrived } = hang();
    const server = await startServer(handler);
    const executor = newExecutor();
    const run = execution(server.url, { timeoutMs: null });
    const finished = nextFinished(executor, run.runId);
    executor.run(run);
    await arrived;
    executor.kill(run.runId, 'no longer needed');
    await finished;
    expect(executor.breakerStatus(server.url)).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('Given a refused connection and a timeout, when they end, then both count as breaker failures', async () => {
    const refused = await refusedUrl();
    const executor = newExecutor();
    await runToEnd(executor, execution(refused));
    expect(executor.breakerStatus(refused)).toMatchObject({ consecutiveFailures: 1 });
    const { handler } = hang();
    const server = await startServer(handler);
    await runToEnd(executor, execution(server.url, { timeoutMs: 200 }));
    expect(executor.breakerStatus(server.url)).toMatchObject({ consecutiveFailures: 1 });
  });

  it('Given a run after the breaker opened, when it fails fast, then started still precedes finished', async () => {
    const server = await startServer(respond(500));
    const { executor } = await openBreaker(server);
    const run = execution(server.url, {}, { breaker });
    const started = nextStarted(executor, run.runId);
    const events: string[] = [];
    void started.then(() => events.push('started'));
    await runToEnd(executor, run);
    events.push('finished');
    expect(events).toEqual(['started', 'finished']);
  });
});
