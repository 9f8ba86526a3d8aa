import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { GATHER_WRITES_MS, GroupCommit } from '../../src/store/sqlite/group-commit.js';

/** Long enough that a test's handful of event-loop turns always fits in it, on a busy machine too. */
const SLOW_COMMIT_MS = 200;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A real SQLite file whose transactions are counted, and the rows each one committed. */
function countedDatabase(file: string) {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.exec('CREATE TABLE writes (name TEXT PRIMARY KEY, tx INTEGER NOT NULL)');
  const commits: string[][] = [];
  const transaction = sqlite.transaction.bind(sqlite);
  // Observed, not replaced: each batch still runs in SQLite's own transaction.
  sqlite.transaction = ((work: () => unknown) => {
    const counted = () => {
      commits.push([]);
      return work();
    };
    return transaction(counted);
  }) as typeof sqlite.transaction;
  const insert = sqlite.prepare('INSERT INTO writes (name, tx) VALUES (?, ?)');
  /** A write of one row, recorded under the commit it ran in; `spinMs` makes its commit take that long. */
  const row =
    (name: string, spinMs = 0) =>
    () => {
      const until = performance.now() + spinMs;
      while (performance.now() < until);
      insert.run(name, commits.length);
      commits.at(-1)!.push(name);
      return name;
    };
  return { sqlite, commits, row };
}

describe('SQLite group commit', () => {
  let dir: string;
  let db: ReturnType<typeof countedDatabase>;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-group-commit-'));
    db = countedDatabase(path.join(dir, 'store.db'));
  });

  afterEach(() => {
    db.sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Given writes asked for in one turn, when they commit, then they share one transaction and a failing one is undone alone', async () => {
    const commits = new GroupCommit(db.sqlite, GATHER_WRITES_MS);
    const failing = commits.write(() => {
      db.row('b')();
      throw new Error('refused');
    });
    const written = await Promise.allSettled([
      commits.write(db.row('a')),
      failing,
      commits.write(db.row('c')),
    ]);

    expect(written.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.commits).toHaveLength(1);
    const stored = db.sqlite.prepare('SELECT name FROM writes ORDER BY name').pluck().all();
    expect(stored).toEqual(['a', 'c']);
  });

  it('Given a commit that held eight writes, when the next eight come one turn after another, then they wait for each other and commit together', async () => {
    const commits = new GroupCommit(db.sqlite, SLOW_COMMIT_MS * 10);
    const round = (prefix: string, spinMs = 0) =>
      Array.from({ length: 8 }, (_, index) => `${prefix}${index}`).map((name) => ({ name, spinMs }));
    // The first round commits slowly, so the next may wait as long for company.
    await Promise.all(
      round('first-', SLOW_COMMIT_MS / 8).map((one) => commits.write(db.row(one.name, one.spinMs))),
    );

    // As closed-loop clients answered together: each next request arrives a turn after the one before.
    const second: Promise<string>[] = [];
    for (const { name } of round('second-')) {
      second.push(commits.write(db.row(name)));
      await nextTurn();
    }
    await Promise.all(second);

    expect(db.commits).toEqual([
      round('first-').map((one) => one.name),
      round('second-').map((one) => one.name),
    ]);
  });

  it('Given a commit that held one write, when a write is asked for alone, then it commits at the next turn without waiting for another', async () => {
    const commits = new GroupCommit(db.sqlite, SLOW_COMMIT_MS * 10);
    await commits.write(db.row('lone-0', SLOW_COMMIT_MS));

    const first = commits.write(db.row('lone-1'));
    // Asked for in the turn after the first's: it must find the first committed already.
    const second = nextTurn().then(() => commits.write(db.row('lone-2')));
    await Promise.all([first, second]);

    expect(db.commits).toEqual([['lone-0'], ['lone-1'], ['lone-2']]);
  });

  it('Given a commit that held eight writes, when one write comes alone, then it waits no longer than that commit took and commits by itself', async () => {
    const commits = new GroupCommit(db.sqlite, GATHER_WRITES_MS);
    await Promise.all(Array.from({ length: 8 }, (_, index) => commits.write(db.row(`crowd-${index}`))));

    await expect(commits.write(db.row('alone'))).resolves.toBe('alone');

    expect(db.commits).toHaveLength(2);
    expect(db.commits[1]).toEqual(['alone']);
  });

  it('Given a store that does not gather (a tool’s), when writes come a turn apart after a commit of eight, then each commits at its next turn', async () => {
    const commits = new GroupCommit(db.sqlite);
    await Promise.all(Array.from({ length: 8 }, (_, index) => commits.write(db.row(`crowd-${index}`, 1))));

    const first = commits.write(db.row('next-0'));
    const second = nextTurn().then(() => commits.write(db.row('next-1')));
    await Promise.all([first, second]);

    expect(db.commits.slice(1)).toEqual([['next-0'], ['next-1']]);
  });

  it('Given commits held, when writes are asked for, then none commits until released, and then all together', async () => {
    const commits = new GroupCommit(db.sqlite, GATHER_WRITES_MS);
    const release = commits.hold();
    const written = [commits.write(db.row('held-a')), commits.write(db.row('held-b'))];
    for (let turn = 0; turn < 5; turn += 1) await nextTurn();
    expect(db.commits).toHaveLength(0);

    release();
    await Promise.all(written);

    expect(db.commits).toEqual([['held-a', 'held-b']]);
  });
});
