import { Command } from '@oclif/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Audit from '../../src/commands/audit.js';
import Kill from '../../src/commands/kill.js';
import Retry from '../../src/commands/retry.js';
import Trigger from '../../src/commands/trigger.js';
import type { Run } from '../../src/core/run.js';
import type { AuditRecord, Page } from '../../src/ipc/protocol.js';
import { FakeDaemonClient, runCommand } from './command-harness.js';

const RUN_ID = '01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44';
const run: Run = {
  id: RUN_ID,
  jobId: 'job-1',
  jobName: 'nightly',
  scheduledFor: Date.parse('2026-06-01T03:00:00Z'),
  attempt: 2,
  trigger: 'schedule',
  state: 'cancelled',
  node: 'host',
  fence: 3,
  createdAt: Date.parse('2026-06-01T03:00:00Z'),
  startedAt: Date.parse('2026-06-01T03:00:01Z'),
  finishedAt: Date.parse('2026-06-01T03:00:09Z'),
  pid: 4242,
  exitCode: null,
  httpStatus: null,
  signal: 'SIGTERM',
  error: 'killed by sched kill',
  retriedBy: null,
  dueAt: Date.parse('2026-06-01T03:00:00Z'),
  stdoutTail: '',
  stderrTail: '',
  responseHeaders: null,
};
const auditPage: Page<AuditRecord> = {
  items: [
    {
      id: 'a-1',
      at: Date.parse('2026-06-01T10:00:00Z'),
      actor: 'alice',
      action: 'job.pause',
      jobId: 'job-1',
      before: { name: 'nightly', state: 'active' },
      after: { name: 'nightly', state: 'paused' },
    },
  ],
  nextCursor: 'c-2',
};

/** What a command logged for people: it runs without --json, with `this.log` captured. */
async function printed(run: () => Promise<unknown>): Promise<string> {
  const lines: string[] = [];
  vi.spyOn(Command.prototype, 'log').mockImplementation((message?: string) => {
    lines.push(`${message ?? ''}\n`);
  });
  await run();
  return lines.join('');
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('sched kill, in process', () => {
  it('given a run id, when run for people, then it says the run was killed and recorded as cancelled', async () => {
    const client = new FakeDaemonClient({ 'run.kill': run });
    expect(await printed(() => runCommand(Kill, [RUN_ID], client))).toBe(
      `Killed run ${RUN_ID} of job nightly; recorded as cancelled.\n`,
    );
  });

  it('given a run id, when run with --json, then it calls run.kill and returns the run as the daemon sent it', async () => {
    const client = new FakeDaemonClient({ 'run.kill': run });
    expect(await runCommand(Kill, [RUN_ID, '--json'], client)).toEqual(run);
    expect(client.calls).toEqual([{ method: 'run.kill', params: { id: RUN_ID } }]);
  });

  it('given a run that was waiting, when killed for people, then it says the run was cancelled before it started', async () => {
    const client = new FakeDaemonClient({ 'run.kill': { ...run, startedAt: null, pid: null } });
    expect(await printed(() => runCommand(Kill, [RUN_ID], client))).toBe(
      `Cancelled run ${RUN_ID} of job nightly before it started; it will not run.\n`,
    );
  });

  it('given no run id, when run, then it fails before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(runCommand(Kill, ['--json'], client)).rejects.toThrow(/Missing 1 required arg/);
    expect(client.calls).toEqual([]);
  });
});

describe('sched retry, in process', () => {
  it('given a run id, when run for people, then it prints the new run id and attempt', async () => {
    const client = new FakeDaemonClient({ 'run.retry': { ...run, id: 'run-2', attempt: 3 } });
    expect(await printed(() => runCommand(Retry, [RUN_ID], client))).toMatch(
      new RegExp(`^Retrying run ${RUN_ID} of job nightly: new run run-2, attempt 3\\.\n`),
    );
  });

  it('given a run id, when run with --json, then it calls run.retry and returns the new attempt', async () => {
    const next = { ...run, id: 'run-2', attempt: 3, state: 'scheduled' as const };
    const client = new FakeDaemonClient({ 'run.retry': next });
    expect(await runCommand(Retry, [RUN_ID, '--json'], client)).toEqual(next);
    expect(client.calls).toEqual([{ method: 'run.retry', params: { id: RUN_ID } }]);
  });
});

describe('sched retry --now and --job, in process', () => {
  it('given --now, when run for people, then run.retry carries now and it says the same attempt started', async () => {
    const client = new FakeDaemonClient({ 'run.retry': { ...run, state: 'running' } });
    expect(await printed(() => runCommand(Retry, [RUN_ID, '--now'], client))).toMatch(
      new RegExp(`^Started run ${RUN_ID} of job nightly now, as attempt 2\\.\n`),
    );
    expect(client.calls).toEqual([{ method: 'run.retry', params: { id: RUN_ID, now: true } }]);
  });

  it('given --job, --since as an instant and --dry-run, when run with --json, then run.redrive gets the range in ms and a dry run', async () => {
    const result = {
      job: { id: 'job-1', name: 'nightly' },
      dryRun: true,
      since: 0,
      until: null,
      redriven: [],
      skipped: [],
      more: false,
    };
    const client = new FakeDaemonClient({ 'run.redrive': result });
    expect(
      await runCommand(
        Retry,
        ['--job', 'nightly', '--since', '2026-06-01T00:00Z', '--dry-run', '--json'],
        client,
      ),
    ).toEqual(result);
    expect(client.calls).toEqual([
      {
        method: 'run.redrive',
        params: { jobRef: 'nightly', since: Date.parse('2026-06-01T00:00Z'), until: undefined, dryRun: true },
      },
    ]);
  });

  it('given --job without --since, when run, then it fails before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(runCommand(Retry, ['--job', 'nightly', '--json'], client)).rejects.toThrow(/--since/);
    expect(client.calls).toEqual([]);
  });
});

describe('sched trigger, in process', () => {
  it('given --idempotency-key, when run, then job.trigger carries the key', async () => {
    const client = new FakeDaemonClient({ 'job.trigger': run });
    await runCommand(Trigger, ['nightly', '--idempotency-key', 'deploy-42', '--json'], client);
    expect(client.calls).toEqual([
      { method: 'job.trigger', params: { ref: 'nightly', idempotencyKey: 'deploy-42' } },
    ]);
  });

  it('given no key, when run, then job.trigger is sent without one', async () => {
    const client = new FakeDaemonClient({ 'job.trigger': run });
    await runCommand(Trigger, ['nightly', '--json'], client);
    expect(client.calls[0]?.params).toEqual({ ref: 'nightly' });
  });
});

describe('sched audit, in process', () => {
  it('given a job and paging flags, when run with --json, then it calls audit.list and returns the page as is', async () => {
    const client = new FakeDaemonClient({ 'audit.list': auditPage });
    expect(
      await runCommand(Audit, ['nightly', '--limit', '10', '--cursor', 'c-1', '--json'], client),
    ).toEqual(auditPage);
    expect(client.calls).toEqual([
      { method: 'audit.list', params: { jobRef: 'nightly', limit: 10, cursor: 'c-1' } },
    ]);
  });

  it('given a page with more after it, when run for people, then it prints the table and how to go on', async () => {
    const client = new FakeDaemonClient({ 'audit.list': auditPage });
    const lines = (await printed(() => runCommand(Audit, ['nightly'], client))).split('\n');
    expect(lines[0]).toMatch(/^TIME +ACTOR +ACTION +JOB +CHANGE$/);
    expect(lines[1]).toMatch(/ alice +job\.pause +nightly +state: active → paused$/);
    expect(lines[2]).toMatch(/^More: sched audit nightly --cursor c-2$/);
  });

  it('given no job, when run, then it asks for every job’s entries', async () => {
    const client = new FakeDaemonClient({ 'audit.list': { items: [], nextCursor: null } });
    await runCommand(Audit, ['--json'], client);
    expect(client.calls[0]?.params).toEqual({});
  });

  it('given a limit out of range, when run, then it fails before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(runCommand(Audit, ['--limit', '0'], client)).rejects.toThrow(/limit/);
    expect(client.calls).toEqual([]);
  });
});
