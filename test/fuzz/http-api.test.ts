import { createHash } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonClient } from '../../src/client/daemon-client.js';
import { JOB_STATUSES } from '../../src/core/job-status.js';
import { apiAddress, createToken, startApiDaemon } from '../support/api-harness.js';
import {
  exchangeHttps,
  type HttpsTarget,
  type RawHttpExchange,
  type RawHttpResponse,
} from '../support/raw-https.js';
import { isAlive, sched, useDaemons, type RunningDaemon } from '../support/sched-harness.js';
import { costlyRuns } from './support/fuzz-runs.js';
import { KEPT, bodyRequests, httpRequests, renderRequest } from './support/http-requests.js';
import { GHOST } from './support/socket-messages.js';

// Bad input through the HTTPS API of a real daemon. Runs per property: costlyRuns (FUZZ_RUNS scales them);
// a failure prints its seed and path, and FUZZ_SEED=<seed> FUZZ_PATH=<path> replays it (support/fuzz-runs.ts).

const TEN_MB = 10 * 1024 * 1024;
// Long enough for the server's own limits (TLS handshake and headers 10 s, a whole request 30 s) and then
// some for a busy machine; a server without such limits keeps these clients for minutes.
const SLOW_CLIENT_PATIENCE_MS = 45_000;

/** A refusal as the API must send it: a 4xx status and the error envelope, never a 5xx or a stack. */
function expectProperAnswer(response: RawHttpResponse, { head = false } = {}): void {
  expect(response.status, response.body).toBeLessThan(500);
  expect(response.body).not.toMatch(/\n\s+at /);
  if (response.status < 400 || head) return;
  const body = JSON.parse(response.body) as { error?: { code?: unknown; message?: unknown } };
  expect(body, response.body).toEqual({
    error: expect.objectContaining({ code: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) }),
  });
}

/** Every job in every state and every run, as the socket lists them: what a refusal must leave as it was. */
async function stored(client: DaemonClient): Promise<string> {
  const jobs = await client.call('job.list', { limit: 1000, states: [...JOB_STATUSES] });
  const runs = await client.call('run.list', { limit: 1000 });
  return JSON.stringify({ jobs, runs });
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the HTTPS API, given random and damaged requests', () => {
  const daemons = useDaemons(afterAll);
  let home: string;
  let daemon: RunningDaemon;
  let target: HttpsTarget;
  let token: string;
  let socket: DaemonClient;
  let agent: Agent;
  let before: string;
  let listedBefore: { count: number; digest: string };
  let slowClients: Record<
    'tlsNeverStarted' | 'headersNeverEnd' | 'bodyNeverEnds',
    Promise<RawHttpExchange & { ms: number }>
  >;
  // Each exchange comes from an address of its own in 127/8, so the refused tokens of one never slow the
  // next down (failed authentications are limited per address).
  let sources = 0;
  const nextSource = () => {
    sources += 1;
    return `127.1.${Math.floor(sources / 250) % 250}.${(sources % 250) + 1}`;
  };

  const listed = async () => {
    const ls = await sched(home, ['ls', '--json', '--all']);
    return { count: ls.json.items.length as number, digest: digest(ls.stdout) };
  };

  beforeAll(async () => {
    let certificate;
    ({ home, daemon, certificate } = await startApiDaemon(daemons));
    const [host, port] = (await apiAddress(daemon)).split(':');
    target = { host: host!, port: Number(port), ca: certificate.ca };
    // An admin is exempt from the request limits, so a long run is refused for its input, not its rate.
    token = await createToken(home, ['--name', 'fuzzer', '--role', 'admin', '--owner', 'root']);
    startSlowClients();
    socket = await DaemonClient.connect(path.join(home, 'sched.sock'));
    await socket.call('job.add', { input: { name: KEPT, cron: '0 3 1 1 *', argv: ['true'] } });
    agent = new Agent({ connect: { ca: target.ca } });
    before = await stored(socket);
    listedBefore = await listed();
  });

  afterAll(async () => {
    socket?.close();
    await agent?.close();
  });

  /** Clients that never finish, started first so that the properties below run while the server waits. */
  function startSlowClients(): void {
    const started = Date.now();
    const timed = (exchange: Promise<RawHttpExchange>) =>
      exchange.then((result) => ({ ...result, ms: Date.now() - started }));
    const patient = { timeoutMs: SLOW_CLIENT_PATIENCE_MS, idleMs: SLOW_CLIENT_PATIENCE_MS };
    const headers = `POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n`;
    slowClients = {
      tlsNeverStarted: new Promise((resolve) => {
        const connection = net.connect(target.port, target.host);
        const timer = setTimeout(() => connection.destroy(), SLOW_CLIENT_PATIENCE_MS);
        connection.on('error', () => undefined);
        connection.on('close', () => {
          clearTimeout(timer);
          resolve({
            responses: [],
            closedByServer: Date.now() - started < SLOW_CLIENT_PATIENCE_MS,
            rest: '',
            ms: Date.now() - started,
          });
        });
      }),
      headersNeverEnd: timed(
        exchangeHttps(target, Buffer.from(`${headers}X-Slow: ${'a'.repeat(10_000)}`), {
          ...patient,
          localAddress: nextSource(),
          trickle: { from: headers.length, everyMs: 200 },
        }),
      ),
      bodyNeverEnds: timed(
        exchangeHttps(target, Buffer.from(`${headers}Content-Length: 100\r\n\r\n{"input":`), {
          ...patient,
          localAddress: nextSource(),
        }),
      ),
    };
  }

  /** The daemon runs, answers over HTTPS and the socket, and stores what it stored before. */
  async function expectUnharmed(): Promise<void> {
    expect(isAlive(daemon.pid)).toBe(true);
    const health = await request(`https://${target.host}:${target.port}/v1/health`, {
      headers: { authorization: `Bearer ${token}` },
      dispatcher: agent,
    });
    expect(((await health.body.json()) as { pid: number }).pid).toBe(daemon.pid);
    expect(await stored(socket)).toBe(before);
  }

  it('given requests wrong in any part (method, path, encoding, query, headers, token, framing, body), then each answer is a success or a 4xx envelope, and nothing changes', async () => {
    await fc.assert(
      fc.asyncProperty(httpRequests(token), async (model) => {
        const result = await exchangeHttps(target, renderRequest(model), {
          localAddress: nextSource(),
          head: model.method === 'HEAD',
          timeoutMs: model.stalls ? 500 : 5_000,
        });
        // A HEAD's answer (after any 100 Continue) has no body to hold the envelope.
        const answer = result.responses.findIndex((response) => response.status >= 200);
        result.responses.forEach((response, index) =>
          expectProperAnswer(response, { head: index === answer && model.method === 'HEAD' }),
        );
        await expectUnharmed();
      }),
      { numRuns: costlyRuns(300) },
    );
  });

  it('given bodies of any shape, JSON or not, deep or huge, to the routes that read one, then each is refused with a 4xx envelope, and nothing changes', async () => {
    await fc.assert(
      fc.asyncProperty(bodyRequests(token), async (model) => {
        const result = await exchangeHttps(target, renderRequest(model), { localAddress: nextSource() });
        // An `Expect: 100-continue` is answered with 100 Continue before the answer itself.
        const answers = result.responses.filter((response) => response.status >= 200);
        expect(answers).toHaveLength(1);
        expect(answers[0]!.status).toBeGreaterThanOrEqual(400);
        expectProperAnswer(answers[0]!);
        await expectUnharmed();
      }),
      { numRuns: costlyRuns(100) },
    );
  });

  it('given 10 MB bodies, sent whole or chunked or only announced, then each is refused with the envelope and nothing changes', async () => {
    const tenMegabytes = Buffer.alloc(TEN_MB, '[');
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          method: fc.constantFrom('POST', 'PATCH', 'PUT'),
          path: fc.constantFrom('/v1/jobs', `/v1/jobs/${GHOST}`, `/v1/jobs/${GHOST}/trigger`, '/v1/health'),
          sending: fc.constantFrom('whole', 'chunked', 'announced only'),
          contentType: fc.constantFrom('application/json', 'text/plain', 'application/octet-stream'),
        }),
        async ({ method, path: url, sending, contentType }) => {
          if (sending === 'announced only') {
            const head = `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${contentType}\r\nContent-Length: ${TEN_MB}\r\n\r\n`;
            const result = await exchangeHttps(target, Buffer.from(`${head}[[[[`), {
              localAddress: nextSource(),
            });
            expect(result.responses).toHaveLength(1);
            expect(result.responses[0]!.status).toBeGreaterThanOrEqual(400);
            expectProperAnswer(result.responses[0]!);
          } else {
            const body =
              sending === 'whole'
                ? tenMegabytes
                : Readable.from([tenMegabytes.subarray(0, TEN_MB / 2), tenMegabytes.subarray(TEN_MB / 2)]);
            const answer = await request(`https://${target.host}:${target.port}${url}`, {
              method,
              body,
              headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
              dispatcher: agent,
            });
            const text = await answer.body.text();
            expect(answer.statusCode).toBeGreaterThanOrEqual(400);
            expectProperAnswer({ status: answer.statusCode, headers: {}, body: text });
          }
          await expectUnharmed();
        },
      ),
      { numRuns: costlyRuns(8) },
    );
  });

  it('given a client that sends its headers and then its body a byte at a time, then it gets its answer, and others are answered meanwhile', async () => {
    const body = JSON.stringify({ input: { name: KEPT, every: '1h', argv: ['true'] } });
    const head = `POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;

    const slow = exchangeHttps(target, Buffer.from(head + body), {
      localAddress: nextSource(),
      timeoutMs: 20_000,
      trickle: { from: head.length, everyMs: 20 },
    });
    let answeredMeanwhile = 0;
    let settled = false;
    void slow.finally(() => (settled = true));
    while (!settled) {
      await expectUnharmed();
      answeredMeanwhile += 1;
    }

    const { responses } = await slow;
    expect(responses.map((response) => response.status)).toEqual([409]);
    expect(JSON.parse(responses[0]!.body).error.code).toBe('NAME_TAKEN');
    expect(answeredMeanwhile).toBeGreaterThan(1);
  });

  it('given clients that never finish (no TLS handshake, headers without end, a body without end), then the server closes each, a request with a 408 envelope, and stays responsive', async () => {
    const { tlsNeverStarted, headersNeverEnd, bodyNeverEnds } = slowClients;

    expect(await tlsNeverStarted).toMatchObject({ closedByServer: true });
    for (const stalled of [await headersNeverEnd, await bodyNeverEnds]) {
      expect(stalled.closedByServer).toBe(true);
      expect(stalled.responses.map((response) => response.status)).toEqual([408]);
      expectProperAnswer(stalled.responses[0]!);
    }
    await expectUnharmed();
  }, 60_000);

  it('given all of the above, then `sched ls --json` lists what it listed before', async () => {
    expect(await listed()).toEqual(listedBefore);
  });
});
