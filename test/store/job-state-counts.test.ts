import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobState } from '../../src/core/job.js';
import { newId } from '../../src/store/ids.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createJob, definition, newRun, stamp, T0 } from './conformance/fixtures.js';
import { insertSql, migrationsUpTo, oldRows } from './migration-fixtures.js';
import { countedRows, countsOf, type JobStateCounts } from '../support/job-state-counts.js';

const MINUTE = 60_000;
/** Migrations before the counts table (sqlite 0000–0013). */
const BEFORE_COUNTS = 14;

describe('Jobs counted per state in a SQLite store, kept by triggers on jobs', () => {
  let dir: string;
  let file: string;
  const cleanup: Array<() => unknown> = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-job-counts-'));
    file = path.join(dir, 'sched.db');
  });
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function opened(at = file): SqliteStore {
    const store = openSqliteStore(at);
    cleanup.push(() => store.close());
    return store;
  }

  async function expectCountsOfRows(store: Store, expected: JobStateCounts, at = file): Promise<void> {
    expect(countedRows(at)).toEqual(expected);
    expect(await countsOf(store)).toEqual(expected);
  }

  it('Given jobs created, paused, changed, resumed and cancelled, when each state is counted after every step, then the counts are those of the rows', async () => {
    const store = opened();
    const a = await createJob(store, 'a');
    const b = await createJob(store, 'b');
    await store.createJob(
      { id: newId(), definition: definition('c'), owner: 'alice', now: T0, nextRunAt: null, state: 'paused' },
      stamp('job.create'),
    );
    await expectCountsOfRows(store, { active: 2, paused: 1, cancelled: 0 });

    const paused = await store.updateJob(a.id, a.version, { state: 'paused', nextRunAt: null }, stamp('p'));
    await expectCountsOfRows(store, { active: 1, paused: 2, cancelled: 0 });

    // Every changeable column is written, state too: its value unchanged moves no count.
    const changed = await store.updateJob(
      paused.id,
      paused.version,
      { definition: definition('a', { description: 'renamed nothing' }) },
      stamp('u'),
    );
    await expectCountsOfRows(store, { active: 1, paused: 2, cancelled: 0 });

    await store.updateJob(
      changed.id,
      changed.version,
      { state: 'active', nextRunAt: T0 + MINUTE },
      stamp('r'),
    );
    await expectCountsOfRows(store, { active: 2, paused: 1, cancelled: 0 });

    await store.cancelJob(b.id, b.version, T0 + 1, stamp('job.cancel', T0 + 1));
    await expectCountsOfRows(store, { active: 1, paused: 1, cancelled: 1 });
  });

  it('Given cancelled jobs past retention, when they are purged, then the cancelled count falls with the rows', async () => {
    const store = opened();
    for (const name of ['old-1', 'old-2', 'recent']) {
      const job = await createJob(store, name);
      const at = name === 'recent' ? T0 + 10 * MINUTE : T0 + 1;
      await store.cancelJob(job.id, job.version, at, stamp('job.cancel', at));
    }
    await createJob(store, 'kept');

    expect(await store.purgeCancelledJobs(T0 + MINUTE, 100)).toBe(2);

    await expectCountsOfRows(store, { active: 1, paused: 0, cancelled: 1 });
  });

  it('Given a one-shot job, when its only instant fires and it is done, then it is still counted active, as its row is', async () => {
    const store = opened();
    const once = await store.createJob(
      {
        id: newId(),
        definition: definition('once', { schedule: { kind: 'at', at: T0 + MINUTE } }),
        owner: 'alice',
        now: T0,
        nextRunAt: T0 + MINUTE,
      },
      stamp('job.create'),
    );

    const fired = await store.recordFire({
      jobId: once.id,
      runs: [newRun(once.id, { scheduledFor: T0 + MINUTE })],
      occurrences: [],
      expectedNextRunAt: T0 + MINUTE,
      nextRunAt: null,
    });

    expect(fired).not.toBeNull();
    expect((await store.findJob(once.id))?.nextRunAt).toBeNull();
    await expectCountsOfRows(store, { active: 1, paused: 0, cancelled: 0 });
  });

  it('Given random sequences of creates, pauses, resumes, changes, cancels, fires and purges, when the states are counted after each, then every count is count(*) of its rows', async () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constantFrom('create', 'create-paused', 'purge' as const) }),
      fc.record({
        kind: fc.constantFrom('pause', 'resume', 'change', 'cancel', 'fire-done' as const),
        pick: fc.nat(),
      }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (operations) => {
        const at = path.join(dir, `property-${(run += 1)}.db`);
        const store = openSqliteStore(at);
        try {
          let clock = T0;
          for (const op of operations) {
            clock += 1;
            await apply(store, op, clock);
            expect(await countsOf(store)).toEqual(countedRows(at));
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('Given an up-to-date store, when it is opened again, then the counts are read as kept, not counted again at the start', async () => {
    const first = openSqliteStore(file);
    await createJob(first, 'a');
    await first.close();
    const tamper = new Database(file);
    tamper.prepare(`UPDATE job_state_counts SET count = 41 WHERE state = 'active'`).run();
    tamper.close();

    const store = opened();

    expect(await store.countJobs('active')).toBe(41);
  });

  describe('restored from another replica', () => {
    let source: SqliteStore;
    let target: SqliteStore;
    const targetFile = () => path.join(dir, 'target.db');

    /** A source with jobs of every state, and a target holding jobs of its own that the restore replaces. */
    beforeEach(async () => {
      source = opened();
      for (let index = 0; index < 4; index += 1) await createJob(source, `active-${index}`);
      const paused = await createJob(source, 'paused');
      await source.updateJob(paused.id, paused.version, { state: 'paused', nextRunAt: null }, stamp('p'));
      const cancelled = await createJob(source, 'cancelled');
      await source.cancelJob(cancelled.id, cancelled.version, T0 + 1, stamp('job.cancel', T0 + 1));
      await source.replica.recordApplied(9);

      target = opened(targetFile());
      for (let index = 0; index < 3; index += 1) {
        const own = await createJob(target, `own-${index}`);
        await target.updateJob(own.id, own.version, { state: 'paused', nextRunAt: null }, stamp('p'));
      }
      await createJob(target, 'own-active');
    });

    const SOURCE_COUNTS = { active: 4, paused: 1, cancelled: 1 };

    it('Given a copy of a replica’s file, when another replica holding jobs of its own is replaced with it, then its counts are the copy’s rows’, not theirs added to its own', async () => {
      const copy = path.join(dir, 'copy.db');
      await source.replica.copyTo(copy);

      expect(await target.replica.replaceWithFile(copy)).toBe(9);

      await expectCountsOfRows(target, SOURCE_COUNTS, targetFile());
    });

    it('Given the rows of a replica (the snapshot an older version sends), when another replica is replaced with them, then its counts are those rows’, which carry no counts of their own', async () => {
      const rows = source.replica.copy();
      expect(Object.keys(rows.tables)).not.toContain('job_state_counts');

      target.replica.replaceWith(rows);

      await expectCountsOfRows(target, SOURCE_COUNTS, targetFile());
    });

    it('Given rows that hold one job twice, in two states, when a replica is replaced with them, then the one row kept is counted once', async () => {
      const rows = source.replica.copy();
      const jobs = rows.tables.jobs!;
      const active = jobs.find((row) => row.state === 'active')!;
      jobs.push({ ...active, state: 'paused', next_run_at: null });

      target.replica.replaceWith(rows);

      await expectCountsOfRows(target, { active: 3, paused: 2, cancelled: 1 }, targetFile());
    });
  });

  it('Given a database made by the migrations before the counts, holding jobs of every state, when the store opens it, then the counts are filled from its rows once and kept from then on', async () => {
    const { folder } = migrationsUpTo('sqlite', BEFORE_COUNTS);
    cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }));
    const old = new Database(file);
    migrate(drizzle({ client: old }), { migrationsFolder: folder });
    const states = ['active', 'active', 'active', 'paused', 'paused', 'cancelled'];
    for (const [index, state] of states.entries()) {
      const { job } = oldRows(`old-${index}`);
      const row = { ...job, state, deleted_at: state === 'cancelled' ? T0 : null };
      const { text, values } = insertSql('jobs', row, () => '?');
      old.prepare(text).run(...values);
    }
    old.close();

    const store = opened();
    await expectCountsOfRows(store, { active: 3, paused: 2, cancelled: 1 });

    await createJob(store, 'new');
    await expectCountsOfRows(store, { active: 4, paused: 2, cancelled: 1 });
  });
});

type Operation = { kind: 'create' | 'create-paused' | 'purge' } | OnAJob;
/** An operation on one of the jobs it applies to: the `pick`th, round the list. */
type OnAJob = { kind: 'pause' | 'resume' | 'change' | 'cancel' | 'fire-done'; pick: number };

const STATES_OPERATED_ON: Record<
  Exclude<Operation['kind'], 'create' | 'create-paused' | 'purge'>,
  JobState[]
> = {
  pause: ['active'],
  resume: ['paused'],
  change: ['active', 'paused'],
  cancel: ['active', 'paused'],
  'fire-done': ['active'],
};

/** One operation of the property, on a job of the state it applies to (none there: nothing happens). */
async function apply(store: Store, op: Operation, at: number): Promise<void> {
  if ('pick' in op) return applyOnAJob(store, op, at);
  if (op.kind === 'create' || op.kind === 'create-paused') {
    const paused = op.kind === 'create-paused';
    await store.createJob(
      {
        id: newId(),
        definition: definition(`job-${newId()}`),
        owner: 'alice',
        now: at,
        nextRunAt: paused ? null : at + MINUTE,
        state: paused ? 'paused' : 'active',
      },
      stamp('job.create', at),
    );
    return;
  }
  if (op.kind === 'purge') {
    await store.purgeCancelledJobs(at, 100);
  }
}

async function applyOnAJob(store: Store, op: OnAJob, at: number): Promise<void> {
  const candidates = (await store.listJobs({ states: STATES_OPERATED_ON[op.kind], limit: 500 })).items;
  if (candidates.length === 0) return;
  const job = candidates[op.pick % candidates.length]!;
  const audit = stamp(op.kind, at);
  switch (op.kind) {
    case 'pause':
      await store.updateJob(job.id, job.version, { state: 'paused', nextRunAt: null }, audit);
      return;
    case 'resume':
      await store.updateJob(job.id, job.version, { state: 'active', nextRunAt: at + MINUTE }, audit);
      return;
    case 'change':
      await store.updateJob(
        job.id,
        job.version,
        { definition: definition(job.name, { description: 'x' }) },
        audit,
      );
      return;
    case 'cancel':
      await store.cancelJob(job.id, job.version, at - 1, audit);
      return;
    case 'fire-done':
      if (job.nextRunAt === null) return;
      await store.recordFire({
        jobId: job.id,
        runs: [],
        occurrences: [],
        expectedNextRunAt: job.nextRunAt,
        nextRunAt: null,
      });
  }
}
