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

interface ManifestFlag {
  name: string;
  char?: string;
  type: 'option' | 'boolean';
  default?: unknown;
  options?: string[];
  required?: boolean;
  multiple?: boolean;
  allowNo?: boolean;
  hidden?: boolean;
}
interface ManifestArg {
  name: string;
  required?: boolean;
  default?: unknown;
  options?: string[];
}
interface ManifestCommand {
  aliases: string[];
  strict?: boolean;
  args: Record<string, ManifestArg>;
  flags: Record<string, ManifestFlag>;
}

/** Every command the CLI is built from, by id, as oclif names them: src/commands/daemon/run.ts is daemon:run. */
function commandIdsInSource(): string[] {
  const root = path.join(repoRoot, 'src', 'commands');
  return fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file))
    .map((file) =>
      file
        .replace(/\.tsx?$/, '')
        .split(path.sep)
        .join(':'),
    )
    .sort();
}

/** One line per command, argument and flag, with everything a script depends on. */
function describeSurface(commands: Record<string, ManifestCommand>): string {
  const lines: string[] = [];
  for (const id of Object.keys(commands).sort()) {
    const command = commands[id]!;
    lines.push(`${id} ${JSON.stringify({ aliases: command.aliases, strict: command.strict ?? true })}`);
    for (const arg of Object.values(command.args))
      lines.push(
        `  arg ${arg.name} ${JSON.stringify({
          required: arg.required ?? false,
          default: arg.default ?? null,
          options: arg.options ?? null,
        })}`,
      );
    for (const flag of Object.values(command.flags).sort((a, b) => a.name.localeCompare(b.name)))
      lines.push(
        `  --${flag.name} ${JSON.stringify({
          char: flag.char ?? null,
          type: flag.type,
          default: flag.default ?? null,
          options: flag.options ?? null,
          required: flag.required ?? false,
          multiple: flag.multiple ?? false,
          allowNo: flag.allowNo ?? false,
          hidden: flag.hidden ?? false,
        })}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

describe('the command surface', () => {
  const manifest = () =>
    JSON.parse(fs.readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, ManifestCommand>;
    };

  it('is built from every command in src/commands (a stale oclif.manifest.json would hide one)', () => {
    expect(Object.keys(manifest().commands).sort()).toEqual(commandIdsInSource());
  });

  // A change here is a change for scripts: review it as one (`npx vitest run -u` rewrites the file).
  it('keeps every command, argument and flag as the snapshot has them', async () => {
    await expect(describeSurface(manifest().commands)).toMatchFileSnapshot(
      '__snapshots__/command-surface.txt',
    );
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
      'alerts',
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
