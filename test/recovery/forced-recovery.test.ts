import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaftDisk } from '../../src/cluster/peer/raft-disk.js';
import { recoverByForce } from '../../src/recovery/forced-recovery.js';

describe('sched cluster recover, on the files of a stopped daemon', () => {
  let home: string;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-recover-'));
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  const recover = (voters: string[], force = true) =>
    recoverByForce({
      home,
      homeLockPath: path.join(home, 'daemon.lock'),
      voters,
      force,
      by: 'ada',
      now: 5_000,
    });

  /** A log as a daemon of node `node` left it: voted in term 3, entries up to 4 of term 2. */
  function leftBy(node: string): void {
    const disk = RaftDisk.open<string, unknown>(path.join(home, 'raft.db'));
    disk.claimNode(node);
    disk.persist({
      hardState: { term: 3, votedFor: node },
      snapshot: null,
      logChanges: {
        from: 1,
        entries: [1, 2, 3, 4].map((index) => ({ index, term: index < 3 ? 1 : 2, data: null })),
      },
    });
    disk.close();
  }

  it('given the survivors, this node among them, forces them past every term it saw and says where its log ends', () => {
    leftBy('10.0.0.2:7946');

    const result = recover(['10.0.0.2:7946', '10.0.0.1:7946']);

    expect(result).toEqual({
      node: '10.0.0.2:7946',
      voters: ['10.0.0.1:7946', '10.0.0.2:7946'],
      term: 4,
      lastIndex: 4,
      lastTerm: 2,
    });
    const disk = RaftDisk.open<string, unknown>(path.join(home, 'raft.db'));
    expect(disk.load()).toMatchObject({ hardState: { term: 4, votedFor: null }, entries: { length: 4 } });
    expect(disk.forcedRecovery()).toEqual({ voters: result.voters, term: 4, at: 5_000, by: 'ada' });
    disk.close();
  });

  it('given voters that leave out this node, or a home with no peer-mode state, refuses and changes nothing', () => {
    expect(() => recover(['10.0.0.1:7946'])).toThrow(/no peer-mode state/);
    expect(fs.existsSync(path.join(home, 'raft.db'))).toBe(false);

    leftBy('10.0.0.2:7946');
    expect(() => recover(['10.0.0.1:7946'])).toThrow(/leaves out this node \(10\.0\.0\.2:7946\)/);
    expect(() => recover(['10.0.0.2'])).toThrow(/is not a peer address/);
    expect(() => recover([])).toThrow(/names no voter/);

    const disk = RaftDisk.open<string, unknown>(path.join(home, 'raft.db'));
    expect([disk.load().hardState, disk.forcedRecovery()]).toEqual([
      { term: 3, votedFor: '10.0.0.2:7946' },
      null,
    ]);
    disk.close();
  });
});
