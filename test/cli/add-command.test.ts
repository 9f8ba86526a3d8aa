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
    expect(addParams(client).input).toEqual({ name: 'tick', every: '1s', argv: ['sh', '-c', 'echo hi'] });
  });

  it('given flags after "--", when run, then they belong to the job and not to sched', async () => {
    const client = new FakeDaemonClient({ 'job.add': storedJob });
    await runCommand(Add, ['tick', '--every', '1s', '--json', '--', 'ls', '--every', '-l', '1s'], client);
    expect(addParams(client).input).toEqual({
      name: 'tick',
      every: '1s',
      argv: ['ls', '--every', '-l', '1s'],
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
