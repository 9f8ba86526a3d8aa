import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import DaemonStop from '../../src/commands/daemon/stop.js';
import Export from '../../src/commands/export.js';
import ImportCrontab from '../../src/commands/import/crontab.js';
import ImportJson from '../../src/commands/import/json.js';
import { normalizeJobInput } from '../../src/core/normalize.js';
import type { Job } from '../../src/core/job.js';
import { FakeDaemonClient, runCommand } from './command-harness.js';

const scratchDirs: string[] = [];
/** A temp folder removed after the file's tests. */
function scratchDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-ops-'));
  scratchDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratchDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
import { repoRoot } from '../support/sched-harness.js';

const now = Date.UTC(2026, 0, 1);

function storedJob(name: string, input: Record<string, unknown>, state: Job['state'] = 'active'): Job {
  const definition = normalizeJobInput({ name, ...input }, { now, defaultTimezone: 'UTC' });
  return {
    ...definition,
    id: `id-${name}`,
    state,
    version: 1,
    owner: 'ada',
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    nextRunAt: null,
  };
}

const DAEMON_RUN_FLAGS = [
  'durability',
  'grace',
  'heartbeat-interval',
  'label',
  'lease-ttl',
  'log-level',
  'max-concurrent',
  'metrics',
  'quiet',
  'retention-interval',
  'socket',
  'store',
  'tz',
];

describe('the command surface of the operations commands', () => {
  // A change here is a change for scripts: review it as one.
  it('keeps its flags and arguments', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8'));
    const surface = Object.fromEntries(
      [
        'config:show',
        'daemon:install',
        'daemon:stop',
        'daemon:run',
        'daemon:start',
        'doctor',
        'export',
        'import:crontab',
        'import:json',
      ].map((id) => [
        id,
        {
          flags: Object.keys(manifest.commands[id].flags).sort(),
          args: Object.keys(manifest.commands[id].args),
        },
      ]),
    );
    expect(surface).toEqual({
      'config:show': {
        flags: ['json', 'log-level', 'max-concurrent', 'metrics', 'socket', 'store', 'tz'],
        args: [],
      },
      'daemon:install': { flags: ['force', 'grace', 'json', 'print', 'store', 'system', 'user'], args: [] },
      'daemon:stop': { flags: ['grace', 'json', 'wait'], args: [] },
      'daemon:run': { flags: DAEMON_RUN_FLAGS, args: [] },
      // `daemon start` passes the flags of `daemon run` on, and has its own.
      'daemon:start': { flags: [...DAEMON_RUN_FLAGS, 'json', 'wait'].sort(), args: [] },
      doctor: { flags: ['json'], args: [] },
      export: { flags: ['format', 'json', 'label', 'output'], args: [] },
      'import:crontab': { flags: ['dry-run', 'json', 'system-format', 'tz', 'yes'], args: ['file'] },
      'import:json': { flags: ['dry-run', 'json', 'yes'], args: ['file'] },
    });
  });
});

describe('operations commands, in process', () => {
  it('export pages through job.list and returns the definitions and the paused names', async () => {
    const client = new FakeDaemonClient({
      'job.list': {
        items: [storedJob('a', { cron: '0 * * * *', shell: 'date' }, 'paused')],
        nextCursor: null,
      },
    });

    const result = await runCommand(Export, ['--json'], client);

    expect(client.calls).toEqual([
      { method: 'job.list', params: { limit: 1000, cursor: undefined, labels: undefined } },
    ]);
    expect(result).toMatchObject({
      sched: 'jobs',
      version: 1,
      paused: ['a'],
      jobs: [{ name: 'a', schedule: { kind: 'cron' } }],
    });
    expect(Object.keys((result as { jobs: object[] }).jobs[0]!)).toEqual([
      'name',
      'description',
      'schedule',
      'timezone',
      'target',
      'payload',
      'timeoutMs',
      'labels',
      'retry',
      'policy',
      'after',
      'afterAll',
      'placement',
    ]);
  });

  it('export --format crontab returns the text and what it could not write', async () => {
    const client = new FakeDaemonClient({
      'job.list': {
        items: [
          storedJob('a', { cron: '5 4 * * *', shell: 'date' }),
          storedJob('b', { every: '5m', shell: 'date' }),
        ],
        nextCursor: null,
      },
    });

    const result = await runCommand(Export, ['--format', 'crontab', '--json'], client);

    expect(result).toEqual({
      format: 'crontab',
      text: '5 4 * * * date\n# b: not written: a crontab cannot express a fixed interval (--every)\n',
      skipped: [{ name: 'b', reason: 'a crontab cannot express a fixed interval (--every)' }],
    });
  });

  it('import json --dry-run plans against the jobs there and sends no job.add', async () => {
    const file = path.join(scratchDir(), 'jobs.json');
    const there = storedJob('kept', { cron: '0 * * * *', shell: 'date' });
    const fresh = storedJob('fresh', { cron: '0 1 * * *', shell: 'date' });
    fs.writeFileSync(file, JSON.stringify({ sched: 'jobs', version: 1, jobs: [there, fresh] }));
    const client = new FakeDaemonClient({ 'job.list': { items: [there], nextCursor: null } });

    const result = await runCommand(ImportJson, [file, '--dry-run', '--json'], client);

    expect(client.calls.map((call) => call.method)).toEqual(['job.list']);
    expect(result).toMatchObject({
      applied: false,
      jobs: [
        { name: 'fresh', action: 'create', outcome: null },
        { name: 'kept', action: 'unchanged', outcome: null },
      ],
    });
  });

  it('import crontab --yes sends one job.add per line, with an idempotency key', async () => {
    const file = path.join(scratchDir(), 'crontab');
    fs.writeFileSync(file, '0 3 * * * /usr/local/bin/backup.sh\n');
    const client = new FakeDaemonClient({ 'job.list': { items: [], nextCursor: null }, 'job.add': {} });

    await runCommand(ImportCrontab, [file, '--yes', '--json'], client);

    expect(client.calls[1]).toMatchObject({
      method: 'job.add',
      params: {
        input: { cron: '0 3 * * *', shell: '/usr/local/bin/backup.sh', labels: { source: 'crontab' } },
        idempotencyKey: expect.stringMatching(/^crontab:[0-9a-f]{16}$/),
      },
    });
  });

  it('daemon stop returns once the pid it was given is gone', async () => {
    // A pid far above any pid_max: there is no such process, so the wait ends at once.
    const client = new FakeDaemonClient({ 'daemon.stop': { stopping: true, pid: 2 ** 30 } });

    const result = await runCommand(DaemonStop, ['--grace', '1s', '--json'], client);

    expect(client.calls).toEqual([{ method: 'daemon.stop', params: { graceMs: 1000 } }]);
    expect(result).toMatchObject({ stopped: true, pid: 2 ** 30 });
  });
});
