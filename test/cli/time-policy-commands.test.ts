import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Add from '../../src/commands/add.js';
import Backfill from '../../src/commands/backfill.js';
import Export, { type JobExport } from '../../src/commands/export.js';
import History from '../../src/commands/history.js';
import ImportJson from '../../src/commands/import/json.js';
import type { ImportReport } from '../../src/commands/import/crontab.js';
import Next, { type NextFireTimes } from '../../src/commands/next.js';
import Show, { type ShownJob } from '../../src/commands/show.js';
import Update from '../../src/commands/update.js';
import Why from '../../src/commands/why.js';
import { SchedError } from '../../src/core/errors.js';
import { DEFAULT_TIME_POLICY, jobDefinitionSchema, type Job } from '../../src/core/job.js';
import { normalizeJobInput } from '../../src/core/normalize.js';
import { spreadOffsetMs } from '../../src/core/policy/spread.js';
import type { Method } from '../../src/ipc/protocol.js';
import { FakeDaemonClient, runCommand } from './command-harness.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');

/** A stored job, normalized (so fields added to the model later get their defaults), then changed. */
function job(name: string, changes: Partial<Job> = {}): Job {
  const definition = normalizeJobInput(
    { name, cron: '30 2 * * *', timezone: 'America/New_York', argv: ['./run.sh'] },
    { now: NOW, defaultTimezone: 'UTC' },
  );
  return {
    ...definition,
    id: `id-${name}`,
    state: 'active',
    version: 1,
    owner: 'alice',
    createdAt: NOW,
    updatedAt: NOW,
    deletedAt: null,
    nextRunAt: null,
    ...changes,
  };
}

/** A fake daemon that answers by method and params, for commands that make several different calls. */
class ScriptedClient extends FakeDaemonClient {
  constructor(private readonly answer: (method: Method, params: Record<string, unknown>) => unknown) {
    super({});
  }

  override async call(method: Method, params: unknown): Promise<unknown> {
    this.calls.push({ method, params });
    return this.answer(method, params as Record<string, unknown>);
  }
}

/** job.get over a set of jobs, by name or id; JOB_NOT_FOUND otherwise. */
function jobsClient(jobs: Job[], others: Partial<Record<Method, unknown>> = {}): ScriptedClient {
  return new ScriptedClient((method, params) => {
    if (method === 'job.get') {
      const found = jobs.find((each) => each.id === params.ref || each.name === params.ref);
      if (found === undefined)
        throw new SchedError('JOB_NOT_FOUND', `No job named or with id "${String(params.ref)}".`);
      return { job: found, upcoming: [], recentRuns: [], breaker: null };
    }
    return others[method];
  });
}

function methods(client: FakeDaemonClient): string[] {
  return client.calls.map((call) => call.method);
}

describe('sched add with time-policy flags, in process', () => {
  it('given every time-policy flag, when run, then job.add gets each as typed', async () => {
    const client = new FakeDaemonClient({ 'job.add': job('report') });
    await runCommand(
      Add,
      [
        'report',
        '--cron',
        '0 * * * *',
        '--concurrency',
        'queue',
        '--misfire',
        'count:3',
        '--catchup-window',
        '2h',
        '--skip-if-next-within',
        '10m',
        '--dst-gap',
        'skip',
        '--dst-repeat',
        'both',
        '--spread',
        '5m',
        '--jitter',
        '30s',
        '--json',
        '--',
        './report.sh',
      ],
      client,
    );
    expect(client.calls[0]?.params).toEqual({
      input: {
        name: 'report',
        cron: '0 * * * *',
        argv: ['./report.sh'],
        concurrency: 'queue',
        misfire: 'count:3',
        catchupWindow: '2h',
        skipIfNextWithin: '10m',
        dstGap: 'skip',
        dstRepeat: 'both',
        spread: '5m',
        fireJitter: '30s',
        cwd: process.cwd(),
      },
      idempotencyKey: undefined,
    });
  });

  it('given only --after and --after-all and no schedule, when run, then the job is sent without a schedule', async () => {
    const client = new FakeDaemonClient({ 'job.add': job('publish', { schedule: { kind: 'none' } }) });
    await runCommand(
      Add,
      [
        'publish',
        '--after',
        'backup:failure',
        '--after',
        'lint',
        '--after-all',
        'a',
        '--after-all',
        'b',
        '--json',
        '--',
        './publish.sh',
      ],
      client,
    );
    expect((client.calls[0]?.params as { input: unknown }).input).toEqual({
      name: 'publish',
      argv: ['./publish.sh'],
      after: ['backup:failure', 'lint'],
      afterAll: ['a', 'b'],
      cwd: process.cwd(),
    });
  });

  it('given two schedules, when run, then it refuses before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(
      runCommand(Add, ['tick', '--cron', '0 * * * *', '--every', '1m', '--', 'true'], client),
    ).rejects.toThrow(/--every|--cron/);
    expect(client.calls).toEqual([]);
  });

  it('given the retired --no-jitter, when run, then it refuses before calling the daemon and names the new flag', async () => {
    const client = new FakeDaemonClient({});
    await expect(
      runCommand(Add, ['tick', '--every', '1m', '--no-jitter', '--', 'true'], client),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: '--no-jitter is now --no-backoff-jitter.',
    });
    expect(client.calls).toEqual([]);
  });
});

describe('sched update clearing time-policy settings, in process', () => {
  it('given --clear-spread, --clear-jitter and --clear-after, when run, then the patch clears those three', async () => {
    const client = new FakeDaemonClient({ 'job.update': job('nightly') });
    await runCommand(
      Update,
      ['nightly', '--clear-spread', '--clear-jitter', '--clear-after', '--json'],
      client,
    );
    expect(client.calls[0]?.params).toEqual({
      ref: 'nightly',
      patch: { clear: ['spread', 'fireJitter', 'after'] },
      ifVersion: undefined,
    });
  });

  it('given --clear-timeout with --clear-after-all and --clear-skip-if-next-within, when run, then all three are cleared', async () => {
    const client = new FakeDaemonClient({ 'job.update': job('nightly') });
    await runCommand(
      Update,
      ['nightly', '--clear-timeout', '--clear-after-all', '--clear-skip-if-next-within', '--json'],
      client,
    );
    expect((client.calls[0]?.params as { patch: unknown }).patch).toEqual({
      clear: ['timeout', 'skipIfNextWithin', 'afterAll'],
    });
  });

  it('given --spread and --clear-spread together, when run, then it refuses before calling the daemon', async () => {
    const client = new FakeDaemonClient({});
    await expect(runCommand(Update, ['nightly', '--spread', '5m', '--clear-spread'], client)).rejects.toThrow(
      /--spread|--clear-spread/,
    );
    expect(client.calls).toEqual([]);
  });

  it('given a new --misfire alone, when run, then the patch holds only that', async () => {
    const client = new FakeDaemonClient({ 'job.update': job('nightly') });
    await runCommand(Update, ['nightly', '--misfire', 'all', '--json'], client);
    expect((client.calls[0]?.params as { patch: unknown }).patch).toEqual({ misfire: 'all' });
  });
});

describe('sched show with dependencies, in process', () => {
  it('given a job after two upstreams, one gone, when shown, then upstreams carry names and the gone one a null name', async () => {
    const publish = job('publish', {
      schedule: { kind: 'none' },
      after: [
        { job: 'id-backup', on: 'success' },
        { job: 'id-gone', on: 'failure' },
      ],
      afterAll: [],
    });
    const client = jobsClient([publish, job('backup', { state: 'paused' })]);
    const shown = (await runCommand(Show, ['publish', '--json'], client)) as ShownJob;
    expect(shown.job).toEqual(publish);
    expect(shown.upstreams).toEqual([
      { id: 'id-backup', name: 'backup', state: 'paused' },
      { id: 'id-gone', name: null, state: null },
    ]);
  });
});

describe('sched next for a job, in process', () => {
  const poll = job('poll', {
    schedule: { kind: 'every', intervalMs: 3_600_000, anchorMs: Date.parse('2026-06-01T00:00:00Z') },
    timezone: 'Europe/Berlin',
    policy: { ...DEFAULT_TIME_POLICY, spreadMs: 600_000, jitterMs: 30_000 },
  });

  it('given a job with a spread and a jitter, when run, then each instant has its planned start and the jitter bound', async () => {
    const client = jobsClient([poll]);
    const result = (await runCommand(
      Next,
      ['poll', '--from', '2026-06-01T00:30:00Z', '-n', '2', '--json'],
      client,
    )) as NextFireTimes;
    const offset = spreadOffsetMs('id-poll', 600_000);
    expect(result).toMatchObject({
      expression: null,
      timezone: 'Europe/Berlin',
      job: { id: 'id-poll', name: 'poll' },
      schedule: poll.schedule,
      spreadMs: 600_000,
      spreadOffsetMs: offset,
      jitterMs: 30_000,
    });
    expect(result.instants.map((instant) => [instant.at, instant.start?.epochMs])).toEqual([
      ['2026-06-01T01:00:00.000Z', Date.parse('2026-06-01T01:00:00Z') + offset],
      ['2026-06-01T02:00:00.000Z', Date.parse('2026-06-01T02:00:00Z') + offset],
    ]);
    expect(result.instants[0]).toMatchObject({ local: '2026-06-01T03:00:00+02:00', fires: true, note: null });
  });

  it('given a job and --tz, when run, then it refuses: a job has its own zone', async () => {
    const client = jobsClient([poll]);
    await expect(runCommand(Next, ['poll', '--tz', 'UTC', '--json'], client)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('Europe/Berlin'),
    });
  });

  it('given a job with its DST policy, when run with --explain, then its own gap setting applies', async () => {
    const nightly = job('nightly', {
      policy: { ...DEFAULT_TIME_POLICY, dst: { gap: 'skip', repeat: 'first' } },
    });
    const result = (await runCommand(
      Next,
      ['nightly', '--from', '2026-03-08 00:00', '-n', '1', '--explain', '--json'],
      jobsClient([nightly]),
    )) as NextFireTimes;
    expect(result.dst).toEqual({ gap: 'skip', repeat: 'first' });
    expect(result.instants.map((instant) => [instant.wall, instant.fires])).toEqual([
      ['2026-03-08T02:30:00', false],
      ['2026-03-09T02:30:00', true],
    ]);
  });

  it('given --dst-gap on a job, when run, then it previews that setting instead of the stored one', async () => {
    const result = (await runCommand(
      Next,
      ['nightly', '--from', '2026-03-08 00:00', '-n', '1', '--dst-gap', 'skip', '--explain', '--json'],
      jobsClient([job('nightly')]),
    )) as NextFireTimes;
    expect(result.instants[0]).toMatchObject({
      wall: '2026-03-08T02:30:00',
      fires: false,
      note: { kind: 'skipped' },
    });
  });

  it('given a word that names no job, when run, then the hint says how to give a cron expression', async () => {
    await expect(runCommand(Next, ['nosuchjob', '--json'], jobsClient([]))).rejects.toMatchObject({
      code: 'JOB_NOT_FOUND',
      hint: expect.stringContaining('a cron expression has 5 or 6 fields'),
    });
  });

  it('given @daily, when run, then it is an expression and the daemon is not asked', async () => {
    const client = jobsClient([]);
    const result = (await runCommand(
      Next,
      ['@daily', '--tz', 'UTC', '--from', '2026-06-01T12:00:00Z', '-n', '1', '--json'],
      client,
    )) as NextFireTimes;
    expect(result.expression).toBe('@daily');
    expect(result.job).toBeNull();
    expect(result.instants.map((instant) => instant.at)).toEqual(['2026-06-02T00:00:00.000Z']);
    expect(client.calls).toEqual([]);
  });
});

describe('sched why, in process', () => {
  it('given --at as a wall time, when run, then it is read in the job zone and sent as an instant', async () => {
    const answer = { job: job('nightly'), sentence: 'nightly ran.', entry: null };
    const client = jobsClient([job('nightly')], { 'job.why': answer });
    const result = await runCommand(Why, ['nightly', '--at', '2026-03-08 03:00', '--json'], client);
    expect(result).toEqual(answer);
    expect(client.calls.at(-1)).toEqual({
      method: 'job.why',
      params: { ref: 'id-nightly', at: Date.parse('2026-03-08T07:00:00Z') },
    });
  });

  it('given no --at, when run, then it asks about the latest instant without looking the job up first', async () => {
    const client = jobsClient([], { 'job.why': { job: job('nightly'), sentence: 's', entry: null } });
    await runCommand(Why, ['nightly', '--json'], client);
    expect(client.calls).toEqual([{ method: 'job.why', params: { ref: 'nightly', at: undefined } }]);
  });
});

describe('sched history --all-occurrences, in process', () => {
  it('given a job, when run, then it pages the ledger with the limit and cursor given', async () => {
    const page = { items: [], nextCursor: null };
    const client = jobsClient([job('nightly')], { 'job.occurrences': page });
    const result = await runCommand(
      History,
      ['nightly', '--all-occurrences', '--limit', '20', '--cursor', 'c1', '--json'],
      client,
    );
    expect(result).toEqual(page);
    expect(client.calls.find((call) => call.method === 'job.occurrences')?.params).toEqual({
      ref: 'nightly',
      limit: 20,
      cursor: 'c1',
    });
    expect(methods(client)).not.toContain('run.list');
  });

  it('given no job, when run, then it refuses', async () => {
    const client = jobsClient([]);
    await expect(runCommand(History, ['--all-occurrences', '--json'], client)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: '--all-occurrences needs a job.',
    });
    expect(client.calls).toEqual([]);
  });
});

describe('sched backfill, in process', () => {
  it('given wall times, when run as a dry run, then they are read in the job zone and sent with dryRun', async () => {
    const client = jobsClient([job('nightly')], { 'job.backfill': { instants: [] } });
    await runCommand(
      Backfill,
      ['nightly', '--from', '2026-03-01 00:00', '--to', '2026-03-02 00:00', '--dry-run', '--json'],
      client,
    );
    expect(client.calls.at(-1)).toEqual({
      method: 'job.backfill',
      params: {
        ref: 'id-nightly',
        from: Date.parse('2026-03-01T05:00:00Z'),
        to: Date.parse('2026-03-02T05:00:00Z'),
        dryRun: true,
        max: undefined,
      },
    });
  });

  it('given --max, when run without --dry-run, then the backfill is asked for with that max and for real', async () => {
    const client = jobsClient([job('minutely', { schedule: { kind: 'cron', expression: '* * * * *' } })], {
      'job.backfill': { instants: [] },
    });
    await runCommand(
      Backfill,
      ['minutely', '--from', '2026-01-01 00:00', '--to', '2026-02-01 00:00', '--max', '50000', '--json'],
      client,
    );
    expect(client.calls.at(-1)).toMatchObject({
      method: 'job.backfill',
      params: { max: 50_000, dryRun: false },
    });
  });
});

describe('sched export and import json with dependencies, in process', () => {
  const backup = job('backup');
  const publish = job('publish', {
    schedule: { kind: 'none' },
    labels: { team: 'web' },
    after: [{ job: 'id-backup', on: 'failure' }],
    afterAll: [],
    policy: { ...DEFAULT_TIME_POLICY, concurrency: 'queue', spreadMs: 120_000 },
  });

  it('given a --label filter that leaves out an upstream, when exported, then the upstream is still named', async () => {
    const client = new ScriptedClient((method, params) =>
      method === 'job.list'
        ? { items: params.labels === undefined ? [backup, publish] : [publish], nextCursor: null }
        : undefined,
    );
    const result = (await runCommand(Export, ['--label', 'team=web', '--json'], client)) as JobExport;
    expect(result.jobs).toEqual([
      { ...jobDefinitionSchema.parse(publish), after: [{ job: 'backup', on: 'failure' }] },
    ]);
  });

  describe('import json', () => {
    const dirs: string[] = [];
    afterEach(() => {
      for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    });

    function exportFile(jobs: Job[]): string {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-import-'));
      dirs.push(dir);
      const file = path.join(dir, 'jobs.json');
      const definitions = jobs.map((each) => ({
        ...jobDefinitionSchema.parse(each),
        after: each.after.map((dependency) => ({ ...dependency, job: dependency.job.replace(/^id-/, '') })),
      }));
      fs.writeFileSync(file, JSON.stringify({ sched: 'jobs', version: 1, jobs: definitions, paused: [] }));
      return file;
    }

    it('given a job listed before its upstream, when imported, then the upstream is added first and the job names it', async () => {
      const client = new ScriptedClient((method) =>
        method === 'job.list' ? { items: [], nextCursor: null } : undefined,
      );
      await runCommand(ImportJson, [exportFile([publish, backup]), '--yes', '--json'], client);
      const adds = client.calls
        .filter((call) => call.method === 'job.add')
        .map((call) => (call.params as { input: Record<string, unknown> }).input);
      expect(adds.map((input) => input.name)).toEqual(['backup', 'publish']);
      expect(adds[1]).toMatchObject({ after: ['backup:failure'], concurrency: 'queue', spread: '120000ms' });
      expect(adds[1]).not.toHaveProperty('cron');
    });

    it('given the same jobs already there (upstreams stored by id), when imported, then nothing is created', async () => {
      const client = new ScriptedClient((method) =>
        method === 'job.list' ? { items: [backup, publish], nextCursor: null } : undefined,
      );
      const report = (await runCommand(
        ImportJson,
        [exportFile([publish, backup]), '--yes', '--json'],
        client,
      )) as ImportReport;
      expect(report.jobs.map((each) => [each.name, each.action])).toEqual([
        ['backup', 'unchanged'],
        ['publish', 'unchanged'],
      ]);
      expect(methods(client)).not.toContain('job.add');
    });
  });
});
