import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { insertSql, migrationsUpTo, oldRows } from './migration-fixtures.js';

const JOURNAL = JSON.parse(
  fs.readFileSync(new URL('../../drizzle/sqlite/meta/_journal.json', import.meta.url), 'utf8'),
) as { entries: Array<{ tag: string }> };
const LATEST = JOURNAL.entries.at(-1)!.tag;

describe('the copy of a SQLite database taken before a migration', () => {
  let dir: string;
  let file: string;
  const cleanup: Array<() => unknown> = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-premigration-'));
    file = path.join(dir, 'sched.db');
  });

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A database as the release before the latest migration left it, with one job in it. */
  function databaseOneMigrationBehind(): void {
    const { folder } = migrationsUpTo('sqlite', JOURNAL.entries.length - 1);
    cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }));
    const old = new Database(file);
    migrate(drizzle({ client: old }), { migrationsFolder: folder });
    const { text, values } = insertSql('jobs', oldRows('nightly').job, () => '?');
    old.prepare(text).run(...values);
    old.close();
  }

  const copies = () => fs.readdirSync(dir).filter((name) => name.endsWith('.bak'));

  it('Given a database one migration behind, when the store opens it, then the state before the migration is kept beside it, mode 0600', async () => {
    databaseOneMigrationBehind();

    const store = openSqliteStore(file);
    cleanup.push(() => store.close());

    const copy = path.join(dir, `sched.db.before-${LATEST}.bak`);
    expect(copies()).toEqual([path.basename(copy)]);
    expect(fs.statSync(copy).mode & 0o777).toBe(0o600);
    const kept = new Database(copy, { readonly: true });
    cleanup.push(() => kept.close());
    expect(kept.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(kept.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({
      n: JOURNAL.entries.length - 1,
    });
    expect(kept.prepare('SELECT name FROM jobs').all()).toEqual([{ name: 'nightly' }]);
    expect((await store.findJob('nightly'))?.name).toBe('nightly');
  });

  it('Given a new database, when the store creates it, then nothing is copied', async () => {
    const store = openSqliteStore(file);
    await store.close();
    expect(copies()).toEqual([]);
  });

  it('Given an up-to-date database, when the store opens it again, then nothing is copied', async () => {
    await openSqliteStore(file).close();
    const store = openSqliteStore(file);
    await store.close();
    expect(copies()).toEqual([]);
  });
});
