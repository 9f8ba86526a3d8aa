import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaftDisk, type DurableChanges } from '../../../src/cluster/peer/raft-disk.js';
import type { LogEntry, Snapshot } from '../../../src/core/consensus/raft-messages.js';
import { repoRoot, waitFor } from '../../support/sched-harness.js';
import { MemoryDisk, simulateRaft } from '../../support/sim/raft-simulation.js';

type Entry = LogEntry<string | null>;
type Changes = DurableChanges<string, Entry[]>;

describe('the Raft log on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-raft-disk-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const fileOf = (name = 'raft.db') => path.join(dir, name);

  it('Given a new file, when loaded, then it holds term 0, no vote, no snapshot and no entry', () => {
    const disk = RaftDisk.open<string, Entry[]>(fileOf());
    try {
      expect(disk.load()).toEqual({
        hardState: { term: 0, votedFor: null },
        snapshot: null,
        entries: [],
        forced: null,
      });
    } finally {
      disk.close();
    }
  });

  it('Given voters forced by a recovery, when opened again, then they are there with who forced them, until a step says the log superseded them', () => {
    const file = fileOf();
    const disk = RaftDisk.open<string, Entry[]>(file);
    disk.force({ term: 8, votedFor: null }, { voters: ['a', 'b'], term: 8, at: 1_000, by: 'ada' });
    disk.close();

    const reopened = RaftDisk.open<string, Entry[]>(file);
    try {
      expect(reopened.load()).toMatchObject({
        hardState: { term: 8, votedFor: null },
        forced: { voters: ['a', 'b'], term: 8 },
      });
      expect(reopened.forcedRecovery()).toEqual({ voters: ['a', 'b'], term: 8, at: 1_000, by: 'ada' });
      reopened.persist({ hardState: null, snapshot: null, logChanges: null, forcedSettled: true });
      expect(reopened.load().forced).toBeNull();
    } finally {
      reopened.close();
    }
  });

  it('Given a log that a node claimed, when another node id claims it, then it is refused with how to move a host, and the first claim stands', () => {
    const disk = RaftDisk.open<string, Entry[]>(fileOf());
    try {
      expect(disk.recordedNode()).toBeNull();
      disk.claimNode('10.0.0.1:7946');
      disk.claimNode('10.0.0.1:7946');

      expect(() => disk.claimNode('10.0.0.9:7946')).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          message: expect.stringMatching(/is node 10\.0\.0\.1:7946's; this daemon is 10\.0\.0\.9:7946/),
          hint: expect.stringMatching(/--join/),
        }),
      );
      expect(disk.recordedNode()).toBe('10.0.0.1:7946');
    } finally {
      disk.close();
    }
  });

  it('Given any sequence of votes, appends, overwrites and snapshots, when the file is opened again, then it holds exactly what the in-memory model holds', () => {
    /** Changes that a RaftNode could ask for: appends that continue or overwrite the log, snapshots of what is in it. */
    const steps = fc.array(
      fc.record({
        term: fc.integer({ min: 0, max: 3 }),
        vote: fc.option(fc.constantFrom('n1', 'n2', 'n3')),
        rewind: fc.integer({ min: 0, max: 4 }),
        appended: fc.array(fc.option(fc.string({ maxLength: 12 }), { nil: null }), { maxLength: 5 }),
        voters: fc.option(fc.subarray(['n1', 'n2', 'n3', 'n4'], { minLength: 1 }), { nil: undefined }),
        snapshotBack: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      }),
      { maxLength: 30 },
    );
    let run = 0;
    fc.assert(
      fc.property(steps, (plan) => {
        const file = fileOf(`model-${run++}.db`);
        const model = new MemoryDisk();
        let disk = RaftDisk.open<string, Entry[]>(file);
        try {
          let term = 0;
          for (const step of plan) {
            const { snapshot, entries } = model.load();
            const start = snapshot?.index ?? 0;
            const last = entries.at(-1)?.index ?? start;
            term += step.term;
            const from = Math.max(start + 1, last + 1 - step.rewind);
            const appended: Entry[] = step.appended.map((data, i) => ({
              index: from + i,
              term,
              data,
              ...(i === 0 && step.voters !== undefined ? { voters: step.voters } : {}),
            }));
            const changes: Changes = {
              hardState: { term, votedFor: step.vote },
              snapshot: null,
              logChanges: { from, entries: appended },
            };
            model.persist(changes);
            disk.persist(changes);
            const now = model.load();
            const upTo = (now.entries.at(-1)?.index ?? start) - (step.snapshotBack ?? 0);
            if (step.snapshotBack !== undefined && upTo > start) {
              const taken: Snapshot<Entry[]> = {
                index: upTo,
                term: now.entries.find((entry) => entry.index === upTo)!.term,
                voters: ['n1', 'n2', 'n3'],
                state: now.entries.filter((entry) => entry.index <= upTo),
              };
              model.saveSnapshot(taken);
              disk.saveSnapshot(taken);
            }
          }
          disk.close();
          disk = RaftDisk.open<string, Entry[]>(file);
          expect(disk.load()).toEqual(model.load());
        } finally {
          disk.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('Given Raft clusters whose members keep their state in real files, when simulated with crashes, restarts, partitions and compaction, then no safety property is violated', () => {
    for (const seed of [1, 2, 3]) {
      const disks: RaftDisk<string, Entry[]>[] = [];
      try {
        const result = simulateRaft({
          seed,
          voters: 3,
          faultyTicks: 300,
          healedTicks: 300,
          crashRate: 0.02,
          restartRate: 0.2,
          partitionRate: 0.02,
          proposeRate: 0.3,
          compactEvery: 8,
          openDisk: (hostId) => {
            const disk = RaftDisk.open<string, Entry[]>(fileOf(`seed-${seed}-${hostId}.db`));
            disks.push(disk);
            return disk;
          },
        });
        expect(result.violations).toEqual([]);
        expect(result.acknowledged).toBeGreaterThan(0);
        expect(result.crashes).toBeGreaterThan(0);
      } finally {
        for (const disk of disks) disk.close();
      }
    }
  });

  it('Given a writer killed with SIGKILL while it persists, when the file is opened again, then every entry it acknowledged is there and the log has no gap', async () => {
    const file = fileOf();
    const writer = spawn(process.execPath, [path.join(repoRoot, 'test/support/raft-disk-writer.mjs'), file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let acknowledged = 0;
    let stderr = '';
    writer.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = chunk.trim().split('\n');
      acknowledged = Math.max(acknowledged, Number(lines.at(-1)));
    });
    writer.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    try {
      await waitFor(async () => acknowledged >= 500 || stderr !== '', 60_000);
      expect(stderr).toBe('');
    } finally {
      writer.kill('SIGKILL');
      await exited;
    }

    const disk = RaftDisk.open<unknown, unknown>(file);
    try {
      const { hardState, snapshot, entries } = disk.load();
      const last = entries.at(-1)!.index;
      expect(last).toBeGreaterThanOrEqual(acknowledged);
      expect(snapshot!.index).toBeGreaterThanOrEqual(100);
      expect(entries[0]!.index).toBe(snapshot!.index + 1);
      expect(hardState).toMatchObject({ term: expect.any(Number), votedFor: 'n2' });
      expect(hardState.term).toBeGreaterThanOrEqual(Math.floor(acknowledged / 50) + 1);
      expect(entries.find((entry) => entry.index === acknowledged)!.data).toMatchObject({
        job: `job-${acknowledged}`,
      });
    } finally {
      disk.close();
    }
  });

  it('Given a file of another format, or with an entry missing, when opened or loaded, then it is refused with what is wrong and how to recover, and left as it was', () => {
    const future = fileOf('future.db');
    const raw = new Database(future);
    raw.pragma('user_version = 9');
    raw.close();
    expect(() => RaftDisk.open(future)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/format 9/) }),
    );
    const reopened = new Database(future);
    expect(reopened.pragma('user_version', { simple: true })).toBe(9);
    reopened.close();

    const gap = fileOf('gap.db');
    const disk = RaftDisk.open<string, Entry[]>(gap);
    try {
      disk.persist({
        hardState: null,
        snapshot: null,
        logChanges: { from: 1, entries: [1, 2, 3].map((index) => ({ index, term: 1, data: null })) },
      });
      const sqlite = new Database(gap);
      sqlite.prepare('DELETE FROM log_entries WHERE log_index = 2').run();
      sqlite.close();
      expect(() => disk.load()).toThrow(
        expect.objectContaining({ message: expect.stringMatching(/damaged: entry 2 is missing/) }),
      );
    } finally {
      disk.close();
    }
  });
});
