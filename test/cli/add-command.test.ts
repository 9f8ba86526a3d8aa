import path from 'node:path';
import { describe, expect, it } from 'vitest';
import Add from '../../src/commands/add.js';
import Update from '../../src/commands/update.js';
import { FakeDaemonClient, runCommand } from './command-harness.js';

const storedJob = { id: 'job-1', name: 'tick', state: 'active', version: 1, nextRunAt: null, labels: {} };

function addParams(client: FakeDaemonClient): { input: Record<string, unknown> } {
  return client.calls[0]?.params as { input: Record<string, unknown> };
}

describe('sched add, in process', () => {
  it('given a command after "--", when run, then job.add gets that argv verbatim', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    const result = await runCommand(
      Add,
      ['tick', '--every', '1s', '--json', '--', 'sh', '-c', 'echo hi'],
      client,
    );
    expect(result).toEqual(storedJob);
    expect(client.calls.map((call) => call.method)).toEqual(['job.add']);
    expect(addParams(client).input).toEqual({
      name: 'tick',
      every: '1s',
      argv: ['sh', '-c', 'echo hi'],
      cwd: process.cwd(),
    });
  });

  it('given flags after "--", when run, then they belong to the job and not to sched', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    await runCommand(Add, ['tick', '--every', '1s', '--json', '--', 'ls', '--every', '-l', '1s'], client);
    expect(addParams(client).input).toEqual({
      name: 'tick',
      every: '1s',
      argv: ['ls', '--every', '-l', '1s'],
      cwd: process.cwd(),
    });
  });

  it('given repeated --env and --label and a relative --cwd, when run, then they arrive as records and an absolute path', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    const argv = [
      'tick',
      '--cron',
      '0 3 * * *',
      '--env',
      'A=1',
      '--env',
      'B=x=y',
      '--label',
      'team=ops',
      '--cwd',
      'work',
      '--json',
      '--',
      'true',
    ];
    await runCommand(Add, argv, client);
    expect(addParams(client).input).toMatchObject({
      cron: '0 3 * * *',
      env: { A: '1', B: 'x=y' },
      labels: { team: 'ops' },
      cwd: path.resolve('work'),
    });
  });

  it('given retry flags, when run, then job.add gets them as numbers, durations and a boolean', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    await runCommand(
      Add,
      [
        'tick',
        '--every',
        '1m',
        '--retries',
        '3',
        '--backoff',
        '30s',
        '--backoff-factor',
        '1.5',
        '--backoff-max',
        '10m',
        '--no-backoff-jitter',
        '--json',
        '--',
        'true',
      ],
      client,
    );
    expect(addParams(client).input).toEqual({
      name: 'tick',
      every: '1m',
      argv: ['true'],
      cwd: process.cwd(),
      retries: 3,
      backoff: '30s',
      backoffFactor: 1.5,
      backoffMax: '10m',
      jitter: false,
    });
  });

  it('given --backoff-jitter, when run, then the retry jitter is true', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    await runCommand(Add, ['tick', '--every', '1m', '--backoff-jitter', '--json', '--', 'true'], client);
    expect(addParams(client).input.jitter).toBe(true);
  });

  it('given a backoff factor that is not a number, when run, then it fails naming the flag', async () => {
    const client = new FakeDaemonClient({});
    await expect(
      runCommand(Add, ['tick', '--every', '1m', '--backoff-factor', 'fast', '--', 'true'], client),
    ).rejects.toThrow(/--backoff-factor[\s\S]*Expected a number/);
    expect(client.calls).toEqual([]);
  });

  it('given --retries that is not an integer, when run, then it fails before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(
      runCommand(Add, ['tick', '--every', '1m', '--retries', '2.5', '--', 'true'], client),
    ).rejects.toThrow(/integer/);
    expect(client.calls).toEqual([]);
  });

  it('given an HTTP job with repeated headers, when run, then job.add gets the URL and every header line in order', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    await runCommand(
      Add,
      [
        'hook',
        '--cron',
        '0 * * * *',
        '--http',
        'https://api.example.com/sync',
        '--method',
        'PUT',
        '--header',
        'Authorization: Bearer abc',
        '--header',
        'X-Team: ops',
        '--expect',
        '200,204',
        '--breaker-failures',
        '10',
        '--breaker-cooldown',
        '2m',
        '--payload',
        '{"full":false}',
        '--json',
      ],
      client,
    );
    expect(addParams(client).input).toEqual({
      name: 'hook',
      cron: '0 * * * *',
      http: 'https://api.example.com/sync',
      method: 'PUT',
      headers: ['Authorization: Bearer abc', 'X-Team: ops'],
      expect: '200,204',
      breakerFailures: 10,
      breakerCooldown: '2m',
      payload: '{"full":false}',
    });
  });

  it.each([
    [
      ['--http', 'https://example.com/', '--', 'curl', 'x'],
      'Both --http and a command after "--" were given.',
    ],
    [['--http', 'https://example.com/', '--shell', 'true'], 'Both --http and --shell were given.'],
  ])('given %j, when run, then it refuses before calling the daemon', async (rest, message) => {
    const client = new FakeDaemonClient({});
    await expect(runCommand(Add, ['hook', '--every', '1m', ...rest], client)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message,
    });
    expect(client.calls).toEqual([]);
  });

  it('given --idempotency-key, when run, then job.add carries it beside the input', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    await runCommand(
      Add,
      ['tick', '--every', '1m', '--idempotency-key', 'deploy-42', '--json', '--', 'true'],
      client,
    );
    expect(client.calls[0]?.params).toEqual({
      input: { name: 'tick', every: '1m', argv: ['true'], cwd: process.cwd() },
      idempotencyKey: 'deploy-42',
    });
  });

  it('given an HTTP job, when run, then no working directory is sent', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    await runCommand(Add, ['hook', '--every', '1m', '--http', 'https://example.com/', '--json'], client);
    expect(addParams(client).input.cwd).toBeUndefined();
  });

  it('given two schedules, when run, then it fails before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(
      runCommand(Add, ['tick', '--every', '1s', '--cron', '* * * * *', '--', 'true'], client),
    ).rejects.toThrow(/cron|every/);
    expect(client.calls).toEqual([]);
  });

  it('given a command without "--", when run, then it fails with a hint about "--"', async () => {
    const client = new FakeDaemonClient({});
    await expect(runCommand(Add, ['tick', '--every', '1s', 'echo', 'hi'], client)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      hint: expect.stringContaining('"--"'),
    });
  });
});

describe('sched update, in process', () => {
  it('given --retries alone, when run, then the patch holds only the retries, so the backoff and jitter stay', async () => {
    const client = new FakeDaemonClient({ 'job.update': storedJob });
    await runCommand(Update, ['tick', '--retries', '3', '--json'], client);
    expect(client.calls[0]?.params).toEqual({ ref: 'tick', patch: { retries: 3 } });
    expect(Object.keys((client.calls[0]?.params as { patch: object }).patch)).toEqual(['retries']);
  });

  it('given --no-backoff-jitter alone, when run, then it is a change and the patch turns the retry jitter off', async () => {
    const client = new FakeDaemonClient({ 'job.update': storedJob });
    await runCommand(Update, ['tick', '--no-backoff-jitter', '--json'], client);
    expect(client.calls[0]?.params).toEqual({ ref: 'tick', patch: { jitter: false } });
  });

  it('given a new URL and headers, when run, then the patch switches the target to HTTP', async () => {
    const client = new FakeDaemonClient({ 'job.update': storedJob });
    await runCommand(
      Update,
      ['hook', '--http', 'https://example.com/v2', '--header', 'X-A: 1', '--expect', '2xx', '--json'],
      client,
    );
    expect(client.calls[0]?.params).toEqual({
      ref: 'hook',
      patch: { http: 'https://example.com/v2', headers: ['X-A: 1'], expect: '2xx' },
    });
  });

  it('given --http and a command after "--", when run, then it refuses before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(
      runCommand(Update, ['hook', '--http', 'https://example.com/', '--', './run.sh'], client),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', hint: expect.stringContaining('--http URL') });
    expect(client.calls).toEqual([]);
  });

  it('given no change, when run, then it fails with "nothing to update" before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(runCommand(Update, ['tick'], client)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^Nothing to update/),
    });
    expect(client.calls).toEqual([]);
  });

  it('given a rename, clears and a version check, when run, then job.update gets the patch', async () => {
    const client = new FakeDaemonClient({ 'job.update': storedJob });
    await runCommand(
      Update,
      ['tick', '--name', 'tock', '--clear-timeout', '--clear-cwd', '--if-version', '3', '--json'],
      client,
    );
    expect(client.calls).toEqual([
      {
        method: 'job.update',
        params: { ref: 'tick', patch: { name: 'tock', clear: ['timeout', 'cwd'] }, ifVersion: 3 },
      },
    ]);
  });
});
