import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SchedError as SchedErrorClass, type SchedError } from '../../../src/core/errors.js';
import { journaledRunsStore } from '../../../src/daemon/autonomy/journaled-store.js';
import { LocalCopy } from '../../../src/store/local-copy/local-copy.js';
import { replayJournal } from '../../../src/store/local-copy/replay.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { Job } from '../../../src/core/job.js';
import type { NewOccurrence } from '../../../src/store/store.js';
import { createJob, newRun, outcome, T0 } from '../conformance/fixtures.js';

describe('the journal of runs fired, and ledger entries decided, while the store was unreachable', () => {
  let dir: string;
  let store: SqliteStore;
  let copy: LocalCopy;
  let job: Job;
  const refused: SchedError[] = [];
  const endsSettled: string[] = [];
  const replay = (into: SqliteStore = store) =>
    replayJournal(
      copy,
      into,
      (error) => refused.push(error),
      (runId) => endsSettled.push(runId),
    );
  const reopen = () => {
    copy.close();
    copy = LocalCopy.open(path.join(dir, 'local-copy.db'));
  };
  /**
   * Two runs the store holds running, one then recorded lost by another node, with the ends this node
   * journaled for both while the store was away.
   */
  async function endsOfHeldRuns() {
    const running = await store.insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 1_000 }));
    const lost = await store.insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 2_000 }));
    await store.finishRun(lost.id, outcome({ state: 'lost', exitCode: null, error: 'node gone' }));
    copy.runs.addEnd({ runId: running.id, jobId: job.id, outcome: outcome() });
    copy.runs.addEnd({ runId: lost.id, jobId: job.id, outcome: outcome() });
    return { running, lost };
  }
  const runsOfJob = async () => (await store.listRuns({ jobId: job.id, limit: 100 })).items;
  const skipped = (at: number, node = 'node-a'): NewOccurrence => ({
    jobId: job.id,
    scheduledFor: at,
    wall: null,
    outcome: 'skipped-overlap',
    reason: `on node ${node}: run r1 was still running`,
    node,
    host: node,
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
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-journal-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    copy = LocalCopy.open(path.join(dir, 'local-copy.db'));
    job = await createJob(store, 'everywhere');
    refused.length = 0;
    endsSettled.length = 0;
  });

  afterEach(() => {
    copy.close();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Given a run that ended while the store was away, when the journal is replayed, then the store holds it once with its end, and a second replay writes nothing', async () => {
    const run = newRun(job.id, { state: 'running', host: 'node-a' });
    copy.runs.add(run, job.name);
    expect(copy.runs.finish(run.id, outcome())).toBe(true);

    expect(await replay()).toBe(1);
    expect(await replay()).toBe(0);

    const stored = await runsOfJob();
    expect(stored.map((r) => [r.id, r.state, r.host])).toEqual([[run.id, 'succeeded', 'node-a']]);
    expect(copy.runs.hasPending()).toBe(false);
  });

  it('Given a journal written by a daemon that stopped mid-outage, when the next daemon opens it, then the runs are still there and are replayed', async () => {
    const ended = newRun(job.id, { state: 'running', scheduledFor: T0 + 1_000 });
    const running = newRun(job.id, { state: 'running', scheduledFor: T0 + 2_000 });
    copy.runs.add(ended, job.name);
    copy.runs.finish(ended.id, outcome());
    copy.runs.add(running, job.name);

    reopen();
    await replay();

    const stored = await runsOfJob();
    expect(Object.fromEntries(stored.map((r) => [r.id, r.state]))).toEqual({
      [ended.id]: 'succeeded',
      [running.id]: 'running',
    });
  });

  it('Given a run journaled by a daemon that stopped mid-outage, when it ends under the next one, then the journal takes its end; the end of a run it never held is not its to take', async () => {
    const running = newRun(job.id, { state: 'running' });
    copy.runs.add(running, job.name);
    const elsewhere = newRun(job.id, { state: 'running', scheduledFor: T0 + 5_000 });

    reopen();

    expect(copy.runs.holdsAlone(running.id)).toBe(true);
    expect(copy.runs.holdsAlone(elsewhere.id)).toBe(false);
    expect(copy.runs.finish(elsewhere.id, outcome())).toBe(false);
    expect(copy.runs.finish(running.id, outcome({ state: 'failed', exitCode: 2 }))).toBe(true);
    expect(copy.runs.read(running.id)).toMatchObject({ id: running.id, state: 'failed', exitCode: 2 });
    await replay();
    expect(copy.runs.holdsAlone(running.id)).toBe(false);
    expect((await runsOfJob()).map((r) => [r.id, r.state])).toEqual([[running.id, 'failed']]);
  });

  it('Given a replay cut short after the store took a run (the write committed, its answer lost), when replayed again, then the run is not written twice and gets its end', async () => {
    const run = newRun(job.id, { state: 'running' });
    copy.runs.add(run, job.name);
    copy.runs.finish(run.id, outcome({ state: 'failed', exitCode: 3 }));
    await store.insertRun(run);

    await replay();

    const stored = await runsOfJob();
    expect(stored.map((r) => [r.id, r.state, r.exitCode])).toEqual([[run.id, 'failed', 3]]);
  });

  it('Given a run whose refused write landed after all, between the replay’s look and its insert, when replayed, then it gets its end', async () => {
    const run = newRun(job.id, { state: 'running' });
    copy.runs.add(run, job.name);
    copy.runs.finish(run.id, outcome({ state: 'failed', exitCode: 3 }));
    // The replay looks first (nothing), then the original write lands before the replay's own insert.
    const landing: typeof store = Object.create(store);
    let looked = false;
    landing.findRun = async (id) => {
      const found = await store.findRun(id);
      if (!looked) {
        looked = true;
        await store.insertRun(run);
      }
      return found;
    };

    await replayJournal(copy, landing, (error) => refused.push(error));

    const stored = await runsOfJob();
    expect(stored.map((r) => [r.id, r.state, r.exitCode])).toEqual([[run.id, 'failed', 3]]);
    expect(copy.runs.hasPending()).toBe(false);
  });

  it('Given a store still out of reach (NO_QUORUM), when the journal is replayed, then it keeps every run for the next replay', async () => {
    const run = newRun(job.id, { state: 'running' });
    copy.runs.add(run, job.name);
    copy.runs.finish(run.id, outcome());
    const cutOff: typeof store = Object.create(store);
    cutOff.insertRun = async () => {
      throw new SchedErrorClass('NO_QUORUM', 'no majority of the voters reachable');
    };

    await expect(replayJournal(copy, cutOff, (error) => refused.push(error))).rejects.toThrow(/majority/);

    expect(copy.runs.hasPending()).toBe(true);
    expect(refused).toEqual([]);
    expect(await replay()).toBe(1);
    expect((await runsOfJob()).map((r) => r.state)).toEqual(['succeeded']);
  });

  it('Given a run still running at the replay, when it ends, then its end goes to the store, not the journal, and the journal forgets it', async () => {
    const run = newRun(job.id, { state: 'running' });
    copy.runs.add(run, job.name);
    const launcherStore = journaledRunsStore(store, copy.runs);
    expect((await launcherStore.findRun(run.id))?.state).toBe('running');

    await replay();
    await launcherStore.finishRun(run.id, outcome());

    expect((await store.findRun(run.id))?.state).toBe('succeeded');
    expect([copy.runs.hasPending(), copy.runs.get(run.id)]).toEqual([false, null]);
  });

  it('Given a run replayed while it ran, by a daemon that then stopped, when it ends under the next one, then the journal forgets it', async () => {
    const run = newRun(job.id, { state: 'running' });
    copy.runs.add(run, job.name);
    await replay();

    reopen();
    await journaledRunsStore(store, copy.runs).finishRun(run.id, outcome());

    expect((await store.findRun(run.id))?.state).toBe('succeeded');
    expect(copy.runs.get(run.id)).toBeNull();
  });

  it('Given runs still running at the replay, when they end together, or while the store is away again, then the journal forgets each once the store has its end', async () => {
    const together = [T0 + 1_000, T0 + 2_000].map((at) =>
      newRun(job.id, { state: 'running', scheduledFor: at }),
    );
    const later = newRun(job.id, { state: 'running', scheduledFor: T0 + 3_000 });
    for (const run of [...together, later]) copy.runs.add(run, job.name);
    const launcherStore = journaledRunsStore(store, copy.runs);
    await replay();

    await launcherStore.finishRuns(together.map((run) => ({ runId: run.id, outcome: outcome() })));
    // The store gone again at its end: the daemon journals the end, and the replay writes it.
    copy.runs.addEnd({ runId: later.id, jobId: job.id, outcome: outcome() });
    await replay();

    for (const run of [...together, later]) {
      expect((await store.findRun(run.id))?.state).toBe('succeeded');
      expect(copy.runs.get(run.id)).toBeNull();
    }
  });

  it('Given a run that ends before the replay, when the launcher records its end, then the journal keeps it and the store does not see it until the replay', async () => {
    const run = newRun(job.id, { state: 'running' });
    copy.runs.add(run, job.name);
    const launcherStore = journaledRunsStore(store, copy.runs);

    const { run: ended, retry } = await launcherStore.finishRun(run.id, outcome());

    expect([ended.state, retry]).toEqual(['succeeded', null]);
    expect(await store.findRun(run.id)).toBeNull();
    await replay();
    expect((await store.findRun(run.id))?.state).toBe('succeeded');
  });

  it('Given the end of a run the store held, journaled while it was away, when replayed, then the run ends once; one recorded lost meanwhile keeps that record', async () => {
    const { running, lost } = await endsOfHeldRuns();

    await replay();
    await replay();

    expect((await store.findRun(running.id))?.state).toBe('succeeded');
    expect((await store.findRun(lost.id))?.state).toBe('lost');
    expect(copy.runs.hasPending()).toBe(false);
  });

  it('Given a journal written before ends named their job, when the next daemon opens it, then its ends are kept with no job, and new ends name theirs', async () => {
    const running = await store.insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 1_000 }));
    const later = await store.insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 2_000 }));
    copy.close();
    const file = path.join(dir, 'local-copy.db');
    fs.rmSync(file);
    const old = new Database(file);
    old.exec('CREATE TABLE journaled_ends (run_id TEXT PRIMARY KEY, outcome TEXT NOT NULL)');
    old
      .prepare('INSERT INTO journaled_ends (run_id, outcome) VALUES (?, ?)')
      .run(running.id, JSON.stringify(outcome()));
    old.pragma('user_version = 1');
    old.close();

    copy = LocalCopy.open(file);
    copy.runs.addEnd({ runId: later.id, jobId: job.id, outcome: outcome() });

    expect(copy.runs.pendingEnds().map(({ runId, jobId }) => ({ runId, jobId }))).toEqual([
      { runId: running.id, jobId: null },
      { runId: later.id, jobId: job.id },
    ]);
    await replay();
    expect((await store.findRun(running.id))?.state).toBe('succeeded');
    expect(copy.runs.hasPending()).toBe(false);
  });

  it('Given journaled ends of runs the store held, when a replay is cut short by NO_QUORUM and then completed, then each end is reported settled once, only after the store holds the run ended', async () => {
    const { running, lost } = await endsOfHeldRuns();
    const cutOff: typeof store = Object.create(store);
    cutOff.finishRun = async () => {
      throw new SchedErrorClass('NO_QUORUM', 'no majority of the voters reachable');
    };

    await expect(replay(cutOff)).rejects.toThrow(/majority/);
    expect(endsSettled).not.toContain(running.id);
    await replay();
    await replay();

    // The launcher stops naming a run as unwritten on this report (see EndedRuns.offlineEndSettled).
    expect([...endsSettled].sort()).toEqual([running.id, lost.id].sort());
    expect((await store.findRun(running.id))?.state).toBe('succeeded');
  });

  it('Given journaled ends that a copy behind the log still shows running, when replayed, then the ends already there are no refusal, and the journal empties', async () => {
    const journaled = newRun(job.id, { state: 'running', scheduledFor: T0 + 1_000 });
    copy.runs.add(journaled, job.name);
    copy.runs.finish(journaled.id, outcome());
    const held = await store.insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 2_000 }));
    copy.runs.addEnd({ runId: held.id, jobId: job.id, outcome: outcome() });
    await store.insertRun(journaled);
    await store.finishRun(journaled.id, outcome());
    await store.finishRun(held.id, outcome());
    // The copy has not applied the ends yet: both runs read as running.
    const behind: typeof store = Object.create(store);
    behind.findRun = async (id) => {
      const found = await store.findRun(id);
      return found && { ...found, state: 'running' };
    };

    await replayJournal(copy, behind, (error) => refused.push(error));

    expect(refused).toEqual([]);
    expect(copy.runs.hasPending()).toBe(false);
    expect((await runsOfJob()).map((r) => r.state)).toEqual(['succeeded', 'succeeded']);
  });

  it('Given hundreds of journaled runs, when replayed, then many are written at once (a restart does not wait on one commit after another) and each is stored once with its end', async () => {
    const runs = Array.from({ length: 200 }, (_, index) =>
      newRun(job.id, { state: 'running', scheduledFor: T0 + index * 1_000 }),
    );
    for (const run of runs) {
      copy.runs.add(run, job.name);
      copy.runs.finish(run.id, outcome());
    }
    let inFlight = 0;
    let mostInFlight = 0;
    const counting: typeof store = Object.create(store);
    counting.insertRun = async (run) => {
      mostInFlight = Math.max(mostInFlight, (inFlight += 1));
      try {
        return await store.insertRun(run);
      } finally {
        inFlight -= 1;
      }
    };

    expect(await replayJournal(copy, counting, (error) => refused.push(error))).toBe(200);

    expect(mostInFlight).toBeGreaterThan(1);
    const stored = (await store.listRuns({ jobId: job.id, limit: 1000 })).items;
    expect(stored).toHaveLength(200);
    expect(stored.every((run) => run.state === 'succeeded')).toBe(true);
    expect(copy.runs.hasPending()).toBe(false);
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
      throw new SchedErrorClass('NO_QUORUM', 'no majority of the voters reachable');
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
        throw new SchedErrorClass('VALIDATION_FAILED', 'refused');
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

  it('Given one instant skipped on two nodes, one entry journaled before entries named their host, when the journals are replayed, then the ledger keeps each node’s entry, each with its host', async () => {
    const { host: _none, ...older } = skipped(T0 + 1_000, 'node-a');
    copy.occurrences.add(older);
    copy.occurrences.add(skipped(T0 + 1_000, 'node-b'));
    expect(copy.occurrences.pending().map((entry) => [entry.node, entry.host])).toEqual([
      ['node-a', 'node-a'],
      ['node-b', 'node-b'],
    ]);

    await replay();

    const entries = await store.listOccurrences({ jobId: job.id, order: 'asc', limit: 10 });
    expect(entries.map((entry) => [entry.node, entry.host])).toEqual([
      ['node-a', 'node-a'],
      ['node-b', 'node-b'],
    ]);
    expect(copy.hasPending()).toBe(false);
  });
});
