import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedClient } from '../../src/client/sched-client.js';
import type { SchedError } from '../../src/core/errors.js';
import type { StreamEvent } from '../../src/ipc/protocol.js';
import { createToken, startApiDaemon } from '../support/api-harness.js';
import { childEnv } from '../support/child-env.js';
import { repoRoot, useDaemons, waitFor, type RunningDaemon } from '../support/sched-harness.js';

const run = promisify(execFile);

/** What a request rejected with, as its code, message, hint and details. */
const refusal = (request: Promise<unknown>) =>
  request.then(
    () => null,
    (error: SchedError) => ({
      name: error.name,
      code: error.code,
      message: error.message,
      hint: error.hint,
      details: error.details,
    }),
  );

const withoutClock = <T extends object>(value: T) => ({ ...value, now: undefined });

describe('SchedClient over the socket and over HTTPS', () => {
  const daemons = useDaemons(afterAll);
  let home: string;
  let daemon: RunningDaemon;
  let url: string;
  let ca: string;
  let token: string;
  let socket: SchedClient;
  let https: SchedClient;

  beforeAll(async () => {
    let certFile: string;
    ({ home, daemon, url, certFile } = await startApiDaemon(daemons));
    ca = fs.readFileSync(certFile, 'utf8');
    // Root, as the socket's caller is: the jobs either adds are owned alike.
    token = await createToken(home, ['--name', 'library', '--role', 'admin', '--owner', 'root']);
    socket = await SchedClient.connect({ socketPath: path.join(home, 'sched.sock') });
    https = await SchedClient.connect({ url, token, ca });
  }, 60_000);

  afterAll(() => {
    socket?.close();
    https?.close();
  });

  it('Given a job, when the same requests go over each transport, then each answers the same', async () => {
    await socket.call('job.add', {
      input: { name: 'lib-a', every: '1h', argv: ['echo', 'a'], labels: { team: 'lib' } },
    });
    const run = await https.call('job.trigger', { ref: 'lib-a' });
    // Ended, so that nothing changes between the two reads of each pair.
    await waitFor(async () => (await socket.call('run.get', { id: run.id })).finishedAt !== null);

    for (const [method, params] of [
      ['job.list', { labels: { team: 'lib' } }],
      ['job.get', { ref: 'lib-a', upcoming: 3 }],
      ['run.list', { jobRef: 'lib-a' }],
      ['run.get', { id: run.id.slice(0, 8) }],
      ['job.occurrences', { ref: 'lib-a' }],
      ['job.why', { ref: 'lib-a' }],
    ] as const) {
      const [overSocket, overHttps] = [await socket.call(method, params), await https.call(method, params)];
      expect({ method, result: overHttps }).toEqual({ method, result: overSocket });
    }
    expect(withoutClock(await https.call('daemon.status', {}))).toEqual(
      withoutClock(await socket.call('daemon.status', {})),
    );
    expect(run).toMatchObject({ jobName: 'lib-a', trigger: 'manual' });
  });

  it('Given a job added over HTTPS with an idempotency key, when the same add comes over the socket, then it is the same job, added once', async () => {
    const input = { name: 'lib-once', every: '1h', argv: ['true'] };

    const first = await https.call('job.add', { input, idempotencyKey: 'lib-once-1' });
    const again = await socket.call('job.add', { input, idempotencyKey: 'lib-once-1' });

    expect(again.id).toBe(first.id);
    expect(await socket.call('job.get', { ref: 'lib-once' })).toEqual(
      await https.call('job.get', { ref: 'lib-once' }),
    );
  });

  it('Given requests the daemon refuses, when made over each transport, then they reject with the same SchedError', async () => {
    const missing = [
      await refusal(socket.call('job.get', { ref: 'no-such-job' })),
      await refusal(https.call('job.get', { ref: 'no-such-job' })),
    ];
    const conflict = [
      await refusal(socket.call('job.add', { input: { name: 'lib-a', every: '1h', argv: ['true'] } })),
      await refusal(https.call('job.add', { input: { name: 'lib-a', every: '1h', argv: ['true'] } })),
    ];
    const badParams = [
      await refusal(socket.call('job.list', { limit: 5_000 })),
      await refusal(https.call('job.list', { limit: 5_000 })),
    ];

    expect(missing[1]).toEqual(missing[0]);
    expect(missing[0]).toMatchObject({ name: 'SchedError', code: 'JOB_NOT_FOUND' });
    expect(conflict[1]).toEqual(conflict[0]);
    expect(conflict[0]).toMatchObject({ code: 'NAME_TAKEN' });
    // Checked by the same schema on both; the API's message names the body it was in.
    expect(badParams.map((error) => error?.code)).toEqual(['VALIDATION_FAILED', 'VALIDATION_FAILED']);
    expect(badParams.map((error) => error?.message)).toEqual([
      expect.stringMatching(/^Invalid limit: /),
      expect.stringMatching(/^Invalid body\.limit: /),
    ]);
  });

  it('Given a subscription on each transport, when a job is added, then both yield its event; and close() ends both iterations cleanly', async () => {
    const streams = [
      socket.subscribe({ types: ['job:created'] }),
      https.subscribe({ types: ['job:created'] }),
    ];
    await Promise.all(streams.map((stream) => stream.ready));
    expect(streams.map((stream) => stream.shared)).toEqual([false, false]);

    await socket.call('job.add', { input: { name: 'lib-events', every: '1h', argv: ['true'] } });
    const [overSocket, overHttps] = await Promise.all(streams.map((stream) => stream.next()));

    expect(overHttps).toEqual(overSocket);
    expect(overHttps!.value).toMatchObject({ type: 'job:created', data: { name: 'lib-events' } });

    const readers = [
      await SchedClient.connect({ socketPath: path.join(home, 'sched.sock') }),
      await SchedClient.connect({ url, token, ca }),
    ];
    const live = readers.map((reader) => reader.subscribe({ types: ['job:created'] }));
    await Promise.all(live.map((stream) => stream.ready));
    const iterations = live.map(async (stream) => {
      const seen: StreamEvent[] = [];
      for await (const event of stream) seen.push(event);
      return seen;
    });
    for (const reader of readers) reader.close();
    await expect(Promise.all(iterations)).resolves.toEqual([[], []]);
    for (const stream of streams) await stream.return();
  });

  it('Given events already published, when each transport subscribes with since 0, then both replay the same events first', async () => {
    const [overSocket, overHttps] = await Promise.all(
      [socket, https].map(async (client) => {
        const stream = client.subscribe({ types: ['job:created'], since: 0 });
        const first = await stream.next();
        await stream.return();
        return first.value as StreamEvent;
      }),
    );

    expect(overHttps).toEqual(overSocket);
    expect(overHttps).toMatchObject({ type: 'job:created', data: { name: 'lib-a' }, id: expect.any(Number) });
  });

  it('Given a daemon that stops, when its events are read over HTTPS, then the iteration ends', async () => {
    const other = await startApiDaemon(daemons);
    const reader = await SchedClient.connect({
      url: other.url,
      token: await createToken(other.home, ['--name', 'reader', '--role', 'viewer']),
      ca: fs.readFileSync(other.certFile),
    });
    const stream = reader.subscribe();
    await stream.ready;
    const iteration = (async () => {
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      return types;
    })();

    await other.daemon.stop();

    expect(await iteration).toContain('daemon:stopping');
    reader.close();
  });

  it('Given the built package, when a program imports sched/client, then it finds SchedClient and its types and talks to the daemon both ways', async () => {
    const consumer = fs.mkdtempSync(path.join(home, 'consumer-'));
    fs.mkdirSync(path.join(consumer, 'node_modules'));
    fs.symlinkSync(repoRoot, path.join(consumer, 'node_modules', 'sched'));
    fs.writeFileSync(
      path.join(consumer, 'status.ts'),
      [
        "import { SchedClient, type DaemonStatus, type ClientTarget } from 'sched/client';",
        'export async function pidOf(target: ClientTarget): Promise<number> {',
        '  const client = await SchedClient.connect(target);',
        "  const status: DaemonStatus = await client.call('daemon.status', {});",
        '  client.close();',
        '  return status.pid;',
        '}',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(consumer, 'status.mjs'),
      [
        "import { SchedClient } from 'sched/client';",
        'const [socketPath, url, token, ca] = process.argv.slice(2);',
        'for (const target of [{ socketPath }, { url, token, ca }]) {',
        '  const client = await SchedClient.connect(target);',
        "  console.log((await client.call('daemon.status', {})).pid);",
        '  client.close();',
        '}',
        '',
      ].join('\n'),
    );

    const typed = await run(
      process.execPath,
      [
        path.join(repoRoot, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
        '--typeRoots',
        path.join(repoRoot, 'node_modules/@types'),
        'status.ts',
      ],
      { cwd: consumer, env: childEnv() },
    ).then(
      () => 'typed',
      (error: { stdout: string }) => error.stdout,
    );
    const ran = await run(process.execPath, ['status.mjs', path.join(home, 'sched.sock'), url, token, ca], {
      cwd: consumer,
      env: childEnv(),
    });

    expect(typed).toBe('typed');
    expect(ran.stdout).toBe(`${daemon.pid}\n${daemon.pid}\n`);
    expect(ran.stdout + ran.stderr).not.toContain(token);
  }, 60_000);
});
