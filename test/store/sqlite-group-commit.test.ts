import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  GATHER_WRITES_MS,
  GroupCommit,
  REPLICA_COMMIT_SPACING,
} from '../../src/store/sqlite/group-commit.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await nextTurn();
}

/**
 * A real SQLite file whose transactions are counted, with the rows each one committed, and a clock the
 * test moves: a write may say how long its commit takes.
 */
function countedDatabase(file: string) {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.exec('CREATE TABLE writes (name TEXT PRIMARY KEY)');
  const commits: string[][] = [];
  const transaction = sqlite.transaction.bind(sqlite);
  // Observed, not replaced: each batch still runs in SQLite's own transaction.
  sqlite.transaction = ((work: () => unknown) =>
    transaction(() => {
      commits.push([]);
      return work();
    })) as typeof sqlite.transaction;
  const insert = sqlite.prepare('INSERT INTO writes (name) VALUES (?)');
  const clock = { ms: 0 };
  /** A write of one row, recorded under the commit it ran in; it makes that commit take `takesMs` more. */
  const row =
    (name: string, takesMs = 0) =>
    () => {
      clock.ms += takesMs;
      insert.run(name);
      commits.at(-1)!.push(name);
      return name;
    };
  return { sqlite, commits, row, clock, now: () => clock.ms };
}

const names = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`);

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

  /** A commit of `count` writes that took `takesMs`, as the one before what a test looks at. */
  async function commitOf(commits: GroupCommit, prefix: string, count: number, takesMs: number) {
    const [first, ...rest] = names(prefix, count);
    await Promise.all([
      commits.write(db.row(first!, takesMs)),
      ...rest.map((name) => commits.write(db.row(name))),
    ]);
  }

  it('Given writes asked for in one turn, when they commit, then they share one transaction', async () => {
    const commits = new GroupCommit(db.sqlite, { maxGatherMs: GATHER_WRITES_MS, now: db.now });

    await Promise.all(names('turn-', 3).map((name) => commits.write(db.row(name))));

    expect(db.commits).toEqual([names('turn-', 3)]);
  });

  it('Given writes committed together, when one of them fails, then it alone is undone and refused', async () => {
    const commits = new GroupCommit(db.sqlite, { maxGatherMs: GATHER_WRITES_MS, now: db.now });
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
    expect(db.sqlite.prepare('SELECT name FROM writes ORDER BY name').pluck().all()).toEqual(['a', 'c']);
  });

  it('Given a commit that held eight writes, when the next eight come one turn after another, then they wait for each other and commit together', async () => {
    const commits = new GroupCommit(db.sqlite, { maxGatherMs: GATHER_WRITES_MS, now: db.now });
    await commitOf(commits, 'first-', 8, 1);

    // As closed-loop clients answered together: each next request arrives a turn after the one before.
    const second: Promise<string>[] = [];
    for (const name of names('second-', 8)) {
      second.push(commits.write(db.row(name)));
      await nextTurn();
    }
    await Promise.all(second);

    expect(db.commits).toEqual([names('first-', 8), names('second-', 8)]);
  });

  it('Given a commit that held one write, when a write is asked for alone, then it commits at the next turn without waiting for another', async () => {
    const commits = new GroupCommit(db.sqlite, { maxGatherMs: GATHER_WRITES_MS, now: db.now });
    await commitOf(commits, 'lone-', 1, 1);

    const first = commits.write(db.row('next-0'));
    // Asked for in the turn after the first's: it must find the first committed already.
    const second = nextTurn().then(() => commits.write(db.row('next-1')));
    await Promise.all([first, second]);

    expect(db.commits).toEqual([['lone-0'], ['next-0'], ['next-1']]);
  });

  it('Given a commit of eight that took 0.5 ms, when a write comes alone, then it waits until 0.5 ms have passed and commits by itself', async () => {
    const commits = new GroupCommit(db.sqlite, { maxGatherMs: GATHER_WRITES_MS, now: db.now });
    // Halves and quarters, which binary floating point holds exactly.
    await commitOf(commits, 'crowd-', 8, 0.5);

    const alone = commits.write(db.row('alone'));
    db.clock.ms += 0.25;
    await turns(20);
    expect(db.commits).toHaveLength(1);

    db.clock.ms += 0.25;
    await expect(alone).resolves.toBe('alone');
    expect(db.commits).toEqual([names('crowd-', 8), ['alone']]);
  });

  it('Given a commit of eight that took longer than the cap, when a write comes alone, then it waits only the cap', async () => {
    const commits = new GroupCommit(db.sqlite, { maxGatherMs: GATHER_WRITES_MS, now: db.now });
    await commitOf(commits, 'crowd-', 8, 50);

    const alone = commits.write(db.row('alone'));
    await turns(20);
    expect(db.commits).toHaveLength(1);

    db.clock.ms += GATHER_WRITES_MS;
    await expect(alone).resolves.toBe('alone');
    expect(db.commits).toHaveLength(2);
  });

  it('Given a write gathering company, when the writes are flushed at once (the store closing), then it commits once and the gathering ends', async () => {
    const commits = new GroupCommit(db.sqlite, { maxGatherMs: GATHER_WRITES_MS, now: db.now });
    await commitOf(commits, 'crowd-', 8, 1);
    const alone = commits.write(db.row('alone'));
    await turns(3);

    commits.flush();
    await expect(alone).resolves.toBe('alone');
    db.clock.ms += GATHER_WRITES_MS;
    await turns(5);

    expect(db.commits).toEqual([names('crowd-', 8), ['alone']]);
  });

  it('Given a store that does not gather (a tool’s), when writes come a turn apart after a commit of eight, then each commits at its next turn', async () => {
    const commits = new GroupCommit(db.sqlite, { now: db.now });
    await commitOf(commits, 'crowd-', 8, 1);

    const first = commits.write(db.row('next-0'));
    const second = nextTurn().then(() => commits.write(db.row('next-1')));
    await Promise.all([first, second]);

    expect(db.commits.slice(1)).toEqual([['next-0'], ['next-1']]);
  });

  it('Given commits held, when writes are asked for, then none commits until released, and then all together', async () => {
    const commits = new GroupCommit(db.sqlite, { maxGatherMs: GATHER_WRITES_MS, now: db.now });
    const release = commits.hold();
    const written = [commits.write(db.row('held-a')), commits.write(db.row('held-b'))];
    await turns(5);
    expect(db.commits).toHaveLength(0);

    release();
    await Promise.all(written);

    expect(db.commits).toEqual([['held-a', 'held-b']]);
  });

  describe('spaced as a replica', () => {
    const { factor, maxMs } = REPLICA_COMMIT_SPACING;

    beforeEach(() => {
      // The spacing's wait is a timer; the turns of the event loop stay real.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    });

    afterEach(() => {
      vi.useRealTimers();
    });

    const spaced = () => new GroupCommit(db.sqlite, { spacing: REPLICA_COMMIT_SPACING, now: db.now });

    it('Given a commit that took 10 ms, when writes come right after it, then they wait three times that from its end and commit together', async () => {
      const commits = spaced();
      await commits.write(db.row('first', 10));

      const next = names('next-', 5).map((name) => commits.write(db.row(name)));
      await turns(20);
      vi.advanceTimersByTime(factor * 10 - 1);
      await turns(20);
      expect(db.commits).toEqual([['first']]);

      vi.advanceTimersByTime(1);
      await Promise.all(next);
      expect(db.commits).toEqual([['first'], names('next-', 5)]);
    });

    it('Given a commit that took long, when a write comes right after it, then it waits the longest spacing only', async () => {
      const commits = spaced();
      await commits.write(db.row('slow', maxMs));

      const next = commits.write(db.row('next'));
      vi.advanceTimersByTime(maxMs - 1);
      await turns(20);
      expect(db.commits).toHaveLength(1);

      vi.advanceTimersByTime(1);
      await turns(20);
      expect(db.commits).toEqual([['slow'], ['next']]);
      await expect(next).resolves.toBe('next');
    });

    it('Given the spacing after a commit has passed, when a write comes, then it commits at the next turn', async () => {
      const commits = spaced();
      await commits.write(db.row('first', 10));
      db.clock.ms += factor * 10;

      await expect(commits.write(db.row('later'))).resolves.toBe('later');
      expect(db.commits).toEqual([['first'], ['later']]);
    });

    it('Given a write waiting for its spacing, when the writes are flushed at once (the store closing), then it commits once, and the next write is spaced from that commit', async () => {
      const commits = spaced();
      await commits.write(db.row('first', 10));
      const waiting = commits.write(db.row('waiting', 10));
      vi.advanceTimersByTime(20);
      await turns(5);

      commits.flush();
      await expect(waiting).resolves.toBe('waiting');
      const after = commits.write(db.row('after'));
      // Past when the first wait would have ended: it must not take the write that came after the flush.
      vi.advanceTimersByTime(10);
      await turns(20);
      expect(db.commits).toEqual([['first'], ['waiting']]);

      vi.advanceTimersByTime(factor * 10 - 10);
      await expect(after).resolves.toBe('after');
      expect(db.commits).toEqual([['first'], ['waiting'], ['after']]);
    });

    it('Given commits held past a write’s spacing, when released, then the write commits', async () => {
      const commits = spaced();
      await commits.write(db.row('first', 10));
      const release = commits.hold();
      const held = commits.write(db.row('held'));
      db.clock.ms += maxMs;
      vi.advanceTimersByTime(maxMs);
      await turns(20);
      expect(db.commits).toEqual([['first']]);

      release();
      await expect(held).resolves.toBe('held');
      expect(db.commits).toEqual([['first'], ['held']]);
    });

    it('Given a write asked for by a write being committed, then it is spaced by that commit', async () => {
      const commits = spaced();
      let nested: Promise<string> | undefined;
      await commits.write(() => {
        const outer = db.row('outer', 10)();
        nested = commits.write(db.row('nested'));
        return outer;
      });

      await turns(20);
      expect(db.commits).toEqual([['outer']]);
      vi.advanceTimersByTime(factor * 10);
      await expect(nested).resolves.toBe('nested');
      expect(db.commits).toEqual([['outer'], ['nested']]);
    });
  });
});
