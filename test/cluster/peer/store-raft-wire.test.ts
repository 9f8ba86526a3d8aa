import { describe, expect, it } from 'vitest';
import { storeRaftWire } from '../../../src/cluster/peer/peer-replica.js';
import type { RaftMessage } from '../../../src/core/consensus/raft-messages.js';
import type { StoreCommand } from '../../../src/cluster/peer/store-commands.js';
import type { ReplicaState } from '../../../src/store/sqlite/sqlite-replica.js';

const FILE = { id: '0123456789abcdef', bytes: 4_096, sha256: 'ab'.repeat(32) };

function snapshotOf(state: unknown): RaftMessage<StoreCommand | null, ReplicaState> {
  return {
    type: 'snapshot',
    from: 'n1',
    to: 'n2',
    term: 3,
    snapshot: { index: 40, term: 3, voters: ['n1', 'n2'], state: state as ReplicaState },
  };
}

const sent = (state: unknown) => Buffer.from(JSON.stringify(snapshotOf(state)));

describe('The store’s Raft messages on the wire: a snapshot names a file, or holds rows', () => {
  it('Given a snapshot of rows, as an older version sends it, then it is taken as rows', () => {
    const rows = { appliedIndex: 42, tables: { jobs: [{ id: 'j1', name: 'a' }] } };

    const decoded = storeRaftWire.decode(sent(rows));

    expect(decoded).toEqual({ ok: true, message: snapshotOf(rows) });
  });

  it('Given a snapshot naming a file, then it is taken, but never where the file is kept here, which the sender cannot say', () => {
    const decoded = storeRaftWire.decode(sent({ appliedIndex: 42, file: FILE, received: '/etc/passwd' }));

    expect(decoded).toEqual({ ok: true, message: snapshotOf({ appliedIndex: 42, file: FILE }) });
  });

  it.each([
    ['an id that is not 16 hex digits', { ...FILE, id: '../raft.db' }],
    ['a hash that is not sha256 in hex', { ...FILE, sha256: 'x'.repeat(64) }],
    ['an empty file', { ...FILE, bytes: 0 }],
  ])('Given a snapshot naming a file with %s, then it is refused', (_, file) => {
    expect(storeRaftWire.decode(sent({ appliedIndex: 42, file })).ok).toBe(false);
  });

  it('Given a snapshot kept in place, or a file received here, when it would be sent as such, then encoding refuses', () => {
    expect(() => storeRaftWire.encode(snapshotOf({ appliedIndex: 42, inPlace: true }))).toThrow(
      /sent as a file/,
    );
    expect(() =>
      storeRaftWire.encode(snapshotOf({ appliedIndex: 42, file: FILE, received: '/tmp/x' })),
    ).toThrow(/cannot be sent on/);
  });
});
