import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteConnection } from '../../src/store/sqlite/connection.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

const cleanups: Array<() => Promise<void>> = [];
const daemons = useDaemons((cleanup) => cleanups.push(cleanup));
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
});

interface RunItem {
  scheduledFor: number;
  state: string;
}

const liveJobs = async (home: string): Promise<Array<{ name: string; state: string }>> =>
  (await sched(home, ['ls', '--status', 'active', '--status', 'paused', '--json'])).json.items
    .map((job: { name: string; state: string }) => ({ name: job.name, state: job.state }))
    .sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name));

const runsOf = async (home: string, job: string): Promise<RunItem[]> =>
  (await sched(home, ['history', job, '--json', '--limit', '200'])).json.items;

/** What a database file holds, to show that a refused command changed nothing. */
const fingerprint = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

function integrity(file: string): { check: unknown; jobs: string[] } {
  const copy = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      check: copy.pragma('integrity_check', { simple: true }),
      jobs: (copy.prepare('SELECT name FROM jobs ORDER BY name').all() as Array<{ name: string }>).map(
        (row) => row.name,
      ),
    };
  } finally {
    copy.close();
  }
}

/** A home whose daemon ran once with one job in it, and is stopped. */
async function stoppedHomeWithAJob(): Promise<string> {
  const home = daemons.home();
  await daemons.start(home);
  expect((await sched(home, ['add', 'nightly', '--cron', '0 3 * * *', '--', 'true'])).code).toBe(0);
  expect((await sched(home, ['daemon', 'stop'])).code).toBe(0);
  return home;
}

describe('sched backup and sched restore', () => {
  it('Given a job firing every second, when backed up, stopped, restored and started, then the copy is sound and every job is back and runs', async () => {
    const home = daemons.home();
    const file = path.join(daemons.home(), 'copy.db');
    await daemons.start(home);
    expect((await sched(home, ['add', 'tick', '--every', '1s', '--', 'true'])).code).toBe(0);
    expect((await sched(home, ['add', 'nightly', '--cron', '0 3 * * *', '--', 'true'])).code).toBe(0);
    expect((await sched(home, ['add', 'held', '--every', '1h', '--', 'true'])).code).toBe(0);
    expect((await sched(home, ['pause', 'held'])).code).toBe(0);
    await waitFor(async () => (await runsOf(home, 'tick')).length >= 3, 30_000);

    const backup = await sched(home, ['backup', file, '--json']);

    expect(backup.code).toBe(0);
    expect(backup.json).toMatchObject({ file, bytes: fs.statSync(file).size });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(integrity(file)).toEqual({ check: 'ok', jobs: ['held', 'nightly', 'tick'] });
    const before = await liveJobs(home);

    expect((await sched(home, ['daemon', 'stop'])).code).toBe(0);
    const restore = await sched(home, ['restore', file, '--json']);
    expect(restore.code).toBe(0);
    expect(restore.json).toMatchObject({ restored: file, database: path.join(home, 'sched.db'), jobs: 3 });
    expect(fs.existsSync(restore.json.replacedKeptAs)).toBe(true);
    expect(fs.statSync(path.join(home, 'sched.db')).mode & 0o777).toBe(0o600);
    const restartedAt = Date.now();
    await daemons.start(home);

    expect(await liveJobs(home)).toEqual(before);
    expect(before.find((job) => job.name === 'held')?.state).toBe('paused');
    await waitFor(
      async () =>
        (await runsOf(home, 'tick')).some(
          (run) => run.scheduledFor >= restartedAt && run.state === 'succeeded',
        ),
      30_000,
    );
  });

  it('Given FILE exists, when backed up without --force, then it is refused and FILE is untouched; with --force it is replaced', async () => {
    const home = daemons.home();
    const dir = daemons.home();
    const file = path.join(dir, 'copy.db');
    fs.writeFileSync(file, 'keep me');
    await daemons.start(home);

    const refused = await sched(home, ['backup', file, '--json']);

    expect(refused.code).toBe(2);
    expect(refused.json.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `${file} already exists.`,
    });
    expect(refused.json.error.hint).toContain('--force');
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
    expect(fs.readdirSync(dir)).toEqual(['copy.db']);

    const forced = await sched(home, ['backup', file, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(`Wrote ${file}`);
    expect(integrity(file).check).toBe('ok');
    expect(fs.readdirSync(dir)).toEqual(['copy.db']);
  });

  it("Given the daemon's own database as FILE, when backed up with --force, then it is refused and the daemon goes on", async () => {
    const home = daemons.home();
    await daemons.start(home);
    expect((await sched(home, ['add', 'nightly', '--cron', '0 3 * * *', '--', 'true'])).code).toBe(0);
    const database = path.join(home, 'sched.db');
    const inode = fs.statSync(database).ino;

    for (const file of [database, `${database}-wal`]) {
      const refused = await sched(home, ['backup', file, '--force', '--json']);
      expect(refused.code).toBe(2);
      expect(refused.json.error.message).toBe(
        `${file} is the daemon's own database; a backup cannot replace it.`,
      );
    }

    expect(fs.statSync(database).ino).toBe(inode);
    expect((await sched(home, ['add', 'later', '--every', '1h', '--', 'true'])).code).toBe(0);
    expect((await liveJobs(home)).map((job) => job.name)).toEqual(['later', 'nightly']);
  });

  it('Given a running daemon, when restore is asked for, then it is refused and nothing changes', async () => {
    const home = daemons.home();
    const file = path.join(daemons.home(), 'copy.db');
    await daemons.start(home);
    expect((await sched(home, ['backup', file])).code).toBe(0);
    expect((await sched(home, ['add', 'later', '--every', '1h', '--', 'true'])).code).toBe(0);
    const files = fs.readdirSync(home).sort();

    const refused = await sched(home, ['restore', file, '--json']);

    expect(refused.code).toBe(4);
    expect(refused.json.error.code).toBe('DAEMON_ALREADY_RUNNING');
    expect(refused.json.error.message).toMatch(/A sched daemon \(pid \d+\) is running on .*sched\.db/);
    expect(refused.json.error.hint).toContain('sched daemon stop');
    expect(fs.readdirSync(home).sort()).toEqual(files);
    expect((await liveJobs(home)).map((job) => job.name)).toEqual(['later']);
  });

  it.each([
    [
      'a text file',
      (file: string) => fs.writeFileSync(file, 'not a database\n'.repeat(100)),
      /is not a sched database/,
    ],
    [
      'a SQLite database of something else',
      (file: string) => {
        const other = new Database(file);
        other.exec('CREATE TABLE notes (body TEXT)');
        other.close();
      },
      /is not a sched database: it has no jobs, runs, __drizzle_migrations table/,
    ],
    ['a missing file', () => undefined, /There is no file/],
    [
      'a database from a newer release',
      (file: string) => {
        const newer = openSqliteConnection(file);
        newer
          .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
          .run('from-the-future', Date.UTC(2100, 0, 1));
        newer.pragma('journal_mode = DELETE');
        newer.close();
      },
      /was written by a newer release of sched/,
    ],
  ])(
    'Given %s, when restored, then it is refused and the database is unchanged',
    async (_what, make, says) => {
      const home = await stoppedHomeWithAJob();
      const file = path.join(daemons.home(), 'other.db');
      make(file);
      const database = path.join(home, 'sched.db');
      const before = fingerprint(database);
      const files = fs.readdirSync(home).sort();

      const refused = await sched(home, ['restore', file, '--json']);

      expect(refused.code).toBe(2);
      expect(refused.json.error.code).toBe('VALIDATION_FAILED');
      expect(refused.json.error.message).toMatch(says);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
      expect(fingerprint(database)).toBe(before);
      expect(fs.readdirSync(home).sort()).toEqual(files);
    },
  );

  it('Given a corrupt backup, when restored, then it is refused and the database is unchanged', async () => {
    const home = daemons.home();
    const file = path.join(daemons.home(), 'copy.db');
    await daemons.start(home);
    for (const name of ['a', 'b', 'c'])
      expect((await sched(home, ['add', name, '--every', '1h', '--', 'true'])).code).toBe(0);
    expect((await sched(home, ['backup', file])).code).toBe(0);
    expect((await sched(home, ['daemon', 'stop'])).code).toBe(0);
    // Garbage over every page after the first: the schema is still read, the tables are not sound.
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(size - 4096, 0x5a), 0, size - 4096, 4096);
    fs.closeSync(fd);
    const database = path.join(home, 'sched.db');
    const before = fingerprint(database);

    const refused = await sched(home, ['restore', file, '--json']);

    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('VALIDATION_FAILED');
    expect(refused.json.error.message).toMatch(/integrity_check|is not a sched database: .*malformed/);
    expect(fingerprint(database)).toBe(before);
    expect(fs.readdirSync(home).filter((name) => name.includes('.replaced-'))).toEqual([]);
  });
});
