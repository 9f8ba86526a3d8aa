import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeSnapshotPart } from '../../../src/cluster/peer/snapshot-parts.js';
import { SnapshotReceiving } from '../../../src/cluster/peer/snapshot-receiving.js';
import { FakeClock } from '../../support/fake-clock.js';
import { waitFor } from '../../support/sched-harness.js';

const ID = '00112233aabbccdd';
const FILE = Buffer.from('a snapshot file of thirty-two by');

/** FILE in parts of 8 bytes, as transfer `id` sends them. */
function partsOf(file: Buffer, id = ID, declared = file.length): Buffer[] {
  const count = Math.ceil(file.length / 8);
  return Array.from({ length: count }, (_, index) =>
    encodeSnapshotPart({
      transfer: id,
      index,
      count,
      fileBytes: declared,
      body: file.subarray(index * 8, (index + 1) * 8),
    }),
  );
}

const named = (file: Buffer, id = ID) => ({
  id,
  bytes: file.length,
  sha256: createHash('sha256').update(file).digest('hex'),
});

describe('Receiving a snapshot file in parts', () => {
  let dir: string;
  let refused: string[];
  let receiving: SnapshotReceiving;
  let refusal: string | null;
  let clock: FakeClock;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-snapshot-receiving-'));
    refused = [];
    refusal = null;
    clock = new FakeClock();
    receiving = new SnapshotReceiving({
      beside: path.join(dir, 'raft.db'),
      clock,
      maxFileBytes: 64,
      refusalOf: () => refusal,
      onRefused: (detail) => void refused.push(detail),
    });
  });
  afterEach(async () => {
    await receiving.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const filesLeft = () => fs.readdirSync(dir);

  it('Given every part in order, when the snapshot names the file, then it is handed out whole, private, and removed on close if not taken up', async () => {
    for (const part of partsOf(FILE)) receiving.add(part);

    const file = await receiving.take(named(FILE));

    expect(file).not.toBeNull();
    expect(fs.readFileSync(file!)).toEqual(FILE);
    expect(fs.statSync(file!).mode & 0o777).toBe(0o600);
    expect(refused).toEqual([]);
    await receiving.close();
    expect(filesLeft()).toEqual([]);
  });

  it('Given a part out of order, then it is refused with its transfer, whose later parts and name are refused too', async () => {
    const parts = partsOf(FILE);
    receiving.add(parts[0]!);
    receiving.add(parts[2]!);
    receiving.add(parts[1]!);

    expect(await receiving.take(named(FILE))).toBeNull();
    expect(refused).toEqual([
      expect.stringMatching(/part 2 of 4 .* out of order \(part 1 expected\)/),
      expect.stringMatching(/part 1 of 4 .* no such transfer under way/),
      expect.stringMatching(/names file 00112233aabbccdd, not received here/),
    ]);
    expect(await waitFor(async () => filesLeft().length === 0, 5_000, 10)).toBe(true);
  });

  it('Given a part of a transfer never begun, then it is refused', () => {
    receiving.add(partsOf(FILE, 'ffffffffffffffff')[1]!);

    expect(refused).toEqual([expect.stringMatching(/ffffffffffffffff: no such transfer under way/)]);
  });

  it('Given a transfer that declares a file over the bound, then its first part is refused and nothing is written', () => {
    const large = Buffer.alloc(72, 1);
    receiving.add(partsOf(large)[0]!);

    expect(refused).toEqual([expect.stringMatching(/a file of 72 bytes \(at most 64\)/)]);
    expect(filesLeft()).toEqual([]);
  });

  it('Given parts coming faster than they are written, when more than the bound wait, then the transfer is refused', async () => {
    const slow = new SnapshotReceiving({
      beside: path.join(dir, 'slow.db'),
      clock,
      maxUnwrittenBytes: 16,
      refusalOf: () => null,
      onRefused: (detail) => void refused.push(detail),
    });
    // Parts arrive in one turn; none is written before the next turn.
    for (const part of partsOf(FILE)) slow.add(part);

    expect(refused[0]).toMatch(/part 2 of 4 .* over 16 bytes wait to be written/);
    await slow.close();
  });

  it('Given parts past the size their transfer declared, then the transfer is refused', async () => {
    for (const part of partsOf(FILE, ID, 20)) receiving.add(part);

    expect(refused[0]).toMatch(/past the 20 bytes declared/);
    expect(await receiving.take(named(FILE))).toBeNull();
  });

  it('Given a file short of its last part, or whose hash differs from the one named, then the name is refused and the file removed', async () => {
    const parts = partsOf(FILE);
    for (const part of parts.slice(0, -1)) receiving.add(part);
    expect(await receiving.take(named(FILE))).toBeNull();
    expect(refused.at(-1)).toMatch(/only 3 of 4 parts received/);

    for (const part of parts) receiving.add(part);
    expect(await receiving.take({ ...named(FILE), sha256: 'e'.repeat(64) })).toBeNull();
    expect(refused.at(-1)).toMatch(/not the 32 bytes of e+ named/);
    expect(filesLeft()).toEqual([]);
  });

  it('Given a whole file the replica cannot restore from, then it is refused with the replica’s reason', async () => {
    refusal = 'its migrations reach 2, this database’s 3';
    for (const part of partsOf(FILE)) receiving.add(part);

    expect(await receiving.take(named(FILE))).toBeNull();
    expect(refused).toEqual([expect.stringMatching(/refused: its migrations reach 2/)]);
    expect(filesLeft()).toEqual([]);
  });

  it('Given bytes too short to be a part, then they are refused, not thrown', () => {
    receiving.add(Buffer.from('short'));

    expect(refused).toEqual(['a snapshot part without a body']);
  });

  it('Given a file handed out and never restored from, when the next transfer begins, then it stays while it may be restored from any moment, and is removed a minute after', async () => {
    for (const part of partsOf(FILE)) receiving.add(part);
    const file = (await receiving.take(named(FILE)))!;

    receiving.add(partsOf(FILE, 'aaaaaaaaaaaaaaaa')[0]!);
    expect(fs.existsSync(file)).toBe(true);
    await clock.advance(60_000);
    receiving.add(partsOf(FILE, 'bbbbbbbbbbbbbbbb')[0]!);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('Given a file handed out as of a log index the replica has not reached (it waits behind a long restore), when transfers begin a minute later, then it stays until the replica reaches that index', async () => {
    let applied = 5;
    const waiting = new SnapshotReceiving({
      beside: path.join(dir, 'waiting.db'),
      clock,
      maxFileBytes: 64,
      refusalOf: () => null,
      onRefused: (detail) => void refused.push(detail),
      appliedIndex: () => applied,
    });
    for (const part of partsOf(FILE)) waiting.add(part);
    const file = (await waiting.take(named(FILE), 10))!;

    await clock.advance(60_000);
    waiting.add(partsOf(FILE, 'aaaaaaaaaaaaaaaa')[0]!);
    expect(fs.existsSync(file)).toBe(true);
    applied = 10;
    waiting.add(partsOf(FILE, 'bbbbbbbbbbbbbbbb')[0]!);
    expect(fs.existsSync(file)).toBe(false);
    await waiting.close();
  });
});
