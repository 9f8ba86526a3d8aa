import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeSnapshotPart } from '../../../src/cluster/peer/snapshot-parts.js';
import { SnapshotSending, type SnapshotMessage } from '../../../src/cluster/peer/snapshot-sending.js';
import { FakeClock } from '../../support/fake-clock.js';
import { waitFor } from '../../support/sched-harness.js';

const STALL_MS = 60_000;

/** Raft's snapshot message of the mark at `index`, to `to`. */
function snapshotMessage(to: string, index: number): SnapshotMessage<null> {
  return {
    type: 'snapshot',
    from: 'leader',
    to,
    term: 2,
    snapshot: { index, term: 2, voters: ['leader', to], state: { appliedIndex: index, inPlace: true } },
  };
}

describe('Sending a snapshot as a file, in parts', () => {
  let dir: string;
  let clock: FakeClock;
  let copies: number;
  /** Copies that fail before one is made. */
  let failing: number;
  let parts: Array<{ to: string; transfer: string; index: number; count: number }>;
  /** Parts the link holds without room for more, until released. */
  let hold: (() => void) | null;
  /** The held part's link looks again whether the sender gave the transfer up (as it does every 20 ms). */
  let recheck: () => void;
  /** The number of the connection to the member (it changes when one fails), and who membership holds dead. */
  let connection: number;
  let dead: Set<string>;
  let named: SnapshotMessage<null>[];
  let failed: string[];
  let sending: SnapshotSending<null>;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-snapshot-sending-'));
    clock = new FakeClock();
    copies = 0;
    failing = 0;
    parts = [];
    hold = null;
    recheck = () => undefined;
    connection = 0;
    dead = new Set();
    named = [];
    failed = [];
    sending = new SnapshotSending<null>({
      beside: path.join(dir, 'raft.db'),
      copy: async (file) => {
        if (failing > 0 && (failing -= 1) >= 0) throw new Error('disk full');
        copies += 1;
        fs.writeFileSync(file, Buffer.alloc(1_000, copies), { mode: 0o600 });
        return 40 + copies;
      },
      link: {
        send: async (to, bytes, abandoned) => {
          const { transfer, index, count } = decodeSnapshotPart(bytes)!;
          parts.push({ to, transfer, index, count });
          if (hold === null) return true;
          return new Promise<boolean>((resolve) => {
            hold = () => resolve(true);
            recheck = () => abandoned?.() && resolve(false);
          });
        },
        connection: () => connection,
        onPart: () => undefined,
      },
      clock,
      partBytes: 122,
      stallMs: STALL_MS,
      isDead: (member) => dead.has(member),
      onFailed: (detail) => void failed.push(detail),
    });
  });
  afterEach(async () => {
    await sending.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const send = (message: SnapshotMessage<null>) => void named.push(message);

  it('Given two members that need the same snapshot, then one copy is made and sent to each in parts, then a message naming it, as of the copy’s index', async () => {
    sending.ship(snapshotMessage('n2', 30), send);
    sending.ship(snapshotMessage('n3', 30), send);
    await waitFor(async () => named.length === 2, 5_000, 5);

    expect(copies).toBe(1);
    expect(parts.filter((part) => part.to === 'n2').map((part) => part.index)).toEqual([...Array(10).keys()]);
    expect(named.map((message) => message.to).sort()).toEqual(['n2', 'n3']);
    expect(named[0]!.snapshot.index).toBe(30);
    expect(named[0]!.snapshot.state).toEqual({
      appliedIndex: 41,
      file: { id: expect.stringMatching(/^[0-9a-f]{16}$/), bytes: 1_000, sha256: expect.any(String) },
    });
    expect(failed).toEqual([]);
  });

  it('Given a transfer under way, when Raft sends the same snapshot again, then the transfer goes on and is not begun again', async () => {
    hold = () => undefined;
    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => parts.length === 1, 5_000, 5);

    await clock.advance(STALL_MS / 2);
    sending.ship(snapshotMessage('n2', 30), send);
    const release = hold;
    hold = null;
    release();
    await waitFor(async () => named.length === 1, 5_000, 5);

    expect(new Set(parts.map((part) => part.transfer)).size).toBe(1);
    expect(parts).toHaveLength(10);
  });

  it('Given a transfer that has stalled past the bound, when Raft sends the snapshot again, then it is given up and a new one completes', async () => {
    hold = () => undefined;
    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => parts.length === 1, 5_000, 5);
    const stalled = hold;

    await clock.advance(STALL_MS);
    hold = null;
    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => named.length === 1, 5_000, 5);
    stalled();
    await new Promise((resolve) => setImmediate(resolve));

    const transfers = new Set(parts.map((part) => part.transfer));
    expect(transfers.size).toBe(2);
    expect(named).toHaveLength(1);
    expect(named[0]!.snapshot.state).toMatchObject({ file: { id: [...transfers][1] } });
  });

  it('Given a transfer waiting for room, when membership holds its member dead, then it is given up at once, not at the stall bound, and no message names a file; once the member is back, Raft’s next send begins a new transfer from the first part', async () => {
    hold = () => undefined;
    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => parts.length === 1, 5_000, 5);

    dead.add('n2');
    recheck();
    await waitFor(async () => failed.length === 1, 5_000, 5);
    expect(failed[0]).toMatch(/snapshot to n2: given up: membership holds it dead/);
    // Raft sends it again while the member is dead: nothing begins.
    hold = null;
    sending.ship(snapshotMessage('n2', 30), send);
    await new Promise((resolve) => setImmediate(resolve));
    expect(parts).toHaveLength(1);

    dead.delete('n2');
    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => named.length === 1, 5_000, 5);

    const [abandoned, fresh] = [...new Set(parts.map((part) => part.transfer))];
    expect(parts.filter((part) => part.transfer === fresh).map((part) => part.index)).toEqual([
      ...Array(10).keys(),
    ]);
    expect(named[0]!.snapshot.state).toMatchObject({ file: { id: fresh } });
    expect(fresh).not.toBe(abandoned);
    expect(copies).toBe(1);
  });

  it('Given a member held dead, when Raft sends it a snapshot, then no copy is made and no part sent', async () => {
    dead.add('n3');

    sending.ship(snapshotMessage('n3', 30), send);
    await new Promise((resolve) => setImmediate(resolve));

    expect([copies, parts.length, failed]).toEqual([0, 0, []]);
  });

  it('Given the connection that carried a transfer’s parts failing, then the transfer is given up (a part may be lost), and Raft’s next send begins a new one from the first part', async () => {
    hold = () => undefined;
    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => parts.length === 1, 5_000, 5);

    connection += 1;
    const release = hold;
    hold = null;
    release();
    await waitFor(async () => failed.length === 1, 5_000, 5);
    expect(failed[0]).toMatch(/given up: the connection to it failed/);
    expect(parts).toHaveLength(1);
    expect(named).toEqual([]);

    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => named.length === 1, 5_000, 5);
    expect(parts.slice(1).map((part) => part.index)).toEqual([...Array(10).keys()]);
    expect(new Set(parts.map((part) => part.transfer)).size).toBe(2);
  });

  it('Given a later snapshot, then a new copy is made and the one it supersedes is removed, and closing removes the last', async () => {
    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => named.length === 1, 5_000, 5);
    sending.ship(snapshotMessage('n2', 60), send);
    await waitFor(async () => named.length === 2, 5_000, 5);

    expect(copies).toBe(2);
    expect(await waitFor(async () => fs.readdirSync(dir).join() === 'raft.db-snapshot-60-2', 5_000, 5)).toBe(
      true,
    );
    await sending.close();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('Given a copy that could not be made, when Raft sends the snapshot again, then the copy is made anew and sent', async () => {
    failing = 1;
    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => failed.length === 1, 5_000, 5);
    expect(failed[0]).toMatch(/could not be made: disk full/);

    sending.ship(snapshotMessage('n2', 30), send);
    await waitFor(async () => named.length === 1, 5_000, 5);
    expect(copies).toBe(1);
  });
});
