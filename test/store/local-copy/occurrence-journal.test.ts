import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SchedError } from '../../../src/core/errors.js';
import type { Job } from '../../../src/core/job.js';
import { LocalCopy } from '../../../src/store/local-copy/local-copy.js';
import { replayJournal } from '../../../src/store/local-copy/replay.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { NewOccurrence } from '../../../src/store/store.js';
import { createJob, T0 } from '../conformance/fixtures.js';

describe('the journal of ledger entries decided while the store was unreachable', () => {
  let dir: string;
  let store: SqliteStore;
  let copy: LocalCopy;
  let job: Job;
  const refused: SchedError[] = [];
  const replay = (into: SqliteStore = store) => replayJournal(copy, into, (error) => refused.push(error));
  const skipped = (at: number, node = 'node-a'): NewOccurrence => ({
    jobId: job.id,
    scheduledFor: at,
    wall: null,
    outcome: 'skipped-overlap',
    reason: `on node ${node}: run r1 was still running`,
    node,
    decidedAt: at + 5,
  });
  const ledger = async () =>
    (await store.listOccurrences({ jobId: job.id, order: 'asc', limit: 1_000 })).map((entry) => [
      entry.scheduledFor,
      entry.outcome,
      entry.reason,
      entry.node,
    ]);

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-ledger-journal-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    copy = LocalCopy.open(path.join(dir, 'local-copy.db'));
    job = await createJob(store, 'everywhere');
    refused.length = 0;
  });

  afterEach(() => {
    copy.close();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Given instants skipped for an overlap while the store was away, when the journal is replayed, then the ledger holds each with its reason and node, and a second replay writes nothing', async () => {
    copy.occurrences.add(skipped(T0 + 2_000));
    copy.occurrences.add(skipped(T0 + 1_000));
    expect(copy.hasPending()).toBe(true);

    expect(await replay()).toBe(2);
    expect(await replay()).toBe(0);

    expect(await ledger()).toEqual([
      [T0 + 1_000, 'skipped-overlap', 'on node node-a: run r1 was still running', 'node-a'],
      [T0 + 2_000, 'skipped-overlap', 'on node node-a: run r1 was still running', 'node-a'],
    ]);
    expect(copy.hasPending()).toBe(false);
  });

  it('Given an entry journaled twice, and one journaled by a daemon that stopped mid-outage, when the next daemon replays, then each is stored once', async () => {
    copy.occurrences.add(skipped(T0 + 1_000));
    copy.occurrences.add({ ...skipped(T0 + 1_000), decidedAt: T0 + 9_000 });
    copy.close();
    copy = LocalCopy.open(path.join(dir, 'local-copy.db'));

    expect(copy.occurrences.pending().map((entry) => entry.decidedAt)).toEqual([T0 + 1_005]);
    await replay();

    expect(await ledger()).toHaveLength(1);
  });

  it('Given an entry whose write during the outage landed after all, when replayed, then the store keeps the one it has and the journal empties', async () => {
    const entry = skipped(T0 + 1_000);
    copy.occurrences.add(entry);
    await store.recordOccurrences([{ ...entry, reason: 'written before the outage was noticed' }]);

    await replay();

    expect(await ledger()).toEqual([
      [T0 + 1_000, 'skipped-overlap', 'written before the outage was noticed', 'node-a'],
    ]);
    expect(copy.hasPending()).toBe(false);
  });

  it('Given a store still out of reach (NO_QUORUM), when replayed, then every entry waits for the next replay', async () => {
    copy.occurrences.add(skipped(T0 + 1_000));
    const cutOff: SqliteStore = Object.create(store);
    cutOff.recordOccurrences = async () => {
      throw new SchedError('NO_QUORUM', 'no majority of the voters reachable');
    };

    await expect(replay(cutOff)).rejects.toThrow(/majority/);

    expect([copy.hasPending(), refused]).toEqual([true, []]);
    expect(await replay()).toBe(1);
    expect(await ledger()).toHaveLength(1);
  });

  it('Given an entry the store refuses among others, when replayed, then the others are stored, the refusal is reported, and nothing blocks the journal', async () => {
    copy.occurrences.add(skipped(T0 + 1_000));
    copy.occurrences.add(skipped(T0 + 2_000));
    copy.occurrences.add(skipped(T0 + 3_000));
    const refusing: SqliteStore = Object.create(store);
    refusing.recordOccurrences = async (entries) => {
      if (entries.some((entry) => entry.scheduledFor === T0 + 2_000))
        throw new SchedError('VALIDATION_FAILED', 'refused');
      return store.recordOccurrences(entries);
    };

    await replay(refusing);

    expect((await ledger()).map(([at]) => at)).toEqual([T0 + 1_000, T0 + 3_000]);
    expect(refused.map((error) => error.message)).toEqual(['refused']);
    expect(copy.hasPending()).toBe(false);
  });

  it('Given hundreds of entries, when replayed, then they are written 64 to a call, and each once', async () => {
    for (let index = 0; index < 200; index += 1) copy.occurrences.add(skipped(T0 + index * 1_000));
    const calls: number[] = [];
    const counting: SqliteStore = Object.create(store);
    counting.recordOccurrences = async (entries) => {
      calls.push(entries.length);
      return store.recordOccurrences(entries);
    };

    expect(await replay(counting)).toBe(200);

    expect(calls).toEqual([64, 64, 64, 8]);
    expect(await ledger()).toHaveLength(200);
    expect(copy.hasPending()).toBe(false);
  });

  it('Given one instant skipped on two nodes, when both journals are replayed, then the ledger keeps the first node’s entry (the store keys an instant, not a node)', async () => {
    copy.occurrences.add(skipped(T0 + 1_000, 'node-a'));
    copy.occurrences.add(skipped(T0 + 1_000, 'node-b'));
    expect(copy.occurrences.pending().map((entry) => entry.node)).toEqual(['node-a', 'node-b']);

    await replay();

    expect((await ledger()).map(([, , , node]) => node)).toEqual(['node-a']);
    expect(copy.hasPending()).toBe(false);
  });
});
