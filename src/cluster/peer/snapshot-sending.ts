import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Clock } from '../../core/clock.js';
import type { RaftMessage } from '../../core/consensus/raft-messages.js';
import type { ReplicaState } from '../../store/sqlite/sqlite-replica.js';
import { encodeSnapshotPart, partBodyBytes } from './snapshot-parts.js';
import { removeFilesBeside } from './snapshot-receiving.js';

/** Parts of 1 MiB: well under a stream frame, so a part never waits behind a larger one. */
const PART_BYTES = 1024 * 1024;
/** A transfer that has sent no part for this long is abandoned, and begun anew when Raft sends again. */
export const SNAPSHOT_STALL_MS = 60_000;

/** How the parts of a snapshot file reach a member: sealed frames of their own topic on the peer streams. */
export interface SnapshotPartLink {
  /**
   * Sends a part to `to`; resolves once there is room for the next, or false: dropped, no room in time, or
   * `abandoned` said so while it waited.
   */
  send(to: string, part: Uint8Array, abandoned?: () => boolean): Promise<boolean>;
  /**
   * The number of the connection to `to` now: it changes when one fails, after which parts sent over the
   * one before may be lost.
   */
  connection(to: string): number;
  onPart(handler: (part: Buffer) => void): void;
}

export type SnapshotMessage<Data> = Extract<RaftMessage<Data, ReplicaState>, { type: 'snapshot' }>;

export interface SnapshotSendingOptions {
  /** Where the copies go: this path, then `-snapshot-`, the mark's index and the copy's number (0600). */
  beside: string;
  /**
   * Copies the replica into `file` without holding up the event loop; resolves to the index it is as of,
   * or rejects once `stopped` says so.
   */
  copy(file: string, stopped: () => boolean): Promise<number>;
  link: SnapshotPartLink;
  clock: Clock;
  /** Bytes in one part, header included (1 MiB). */
  partBytes?: number;
  stallMs?: number;
  /**
   * Whether membership holds `member` dead: a transfer to it is given up at once, and none is begun until
   * it is back (Raft sends the snapshot again meanwhile), instead of waiting out the stall bound.
   */
  isDead?(member: string): boolean;
  /** A transfer failed (the copy could not be made or read, a part dropped): for the log. */
  onFailed(detail: string): void;
}

interface Copy {
  mark: number;
  file: string;
  made: Promise<{ appliedIndex: number; bytes: number; sha256: string } | null>;
  /** The copy could not be made: the next transfer of its mark makes it again. */
  failed: boolean;
}

interface Transfer {
  to: string;
  mark: number;
  lastProgress: number;
  over: boolean;
}

/**
 * The leader's side of a snapshot sent as a file: one copy of the replica's database per snapshot mark,
 * made a few pages a turn and shared by every member that needs it, then streamed to each in parts read
 * with async I/O, each waiting for room on the way, and at last the snapshot message naming the file.
 * Raft sends a snapshot again while it waits for an answer: a transfer under way to that member for the
 * same mark goes on instead, unless it has stalled. A transfer is given up as soon as membership holds its
 * member dead, or the connection that carried its parts fails (a part may be lost: the member could never
 * put the file together); Raft's next send begins a new one from the first part, once the member is back.
 */
export class SnapshotSending<Data> {
  private copy: Copy | null = null;
  /** Copies made so far: each has a name of its own, so removing one never removes the next. */
  private copies = 0;
  private readonly transfers = new Map<string, Transfer>();
  private closed = false;

  constructor(private readonly options: SnapshotSendingOptions) {
    removeFilesBeside(options.beside, '-snapshot-');
  }

  /** Sends `message`'s snapshot to its member as a file, then `message` through `send`, naming it. */
  ship(message: SnapshotMessage<Data>, send: (message: SnapshotMessage<Data>) => void): void {
    if (this.closed) return;
    const mark = message.snapshot.index;
    const now = this.options.clock.monotonic();
    const under = this.transfers.get(message.to);
    const stallMs = this.options.stallMs ?? SNAPSHOT_STALL_MS;
    if (under && !under.over && under.mark === mark && now - under.lastProgress < stallMs) return;
    if (under) under.over = true;
    if (this.options.isDead?.(message.to)) return;
    const transfer: Transfer = { to: message.to, mark, lastProgress: now, over: false };
    this.transfers.set(message.to, transfer);
    this.run(message, this.copyFor(mark), transfer, send).catch((error: Error) => {
      transfer.over = true;
      this.options.onFailed(`snapshot to ${message.to}: ${error.message}`);
    });
  }

  /** Abandons every transfer, and removes the copy once the copying has stopped. */
  async close(): Promise<void> {
    this.closed = true;
    for (const transfer of this.transfers.values()) transfer.over = true;
    this.transfers.clear();
    const copy = this.copy;
    this.copy = null;
    if (copy) await this.discard(copy);
  }

  private copyFor(mark: number): Copy {
    if (this.copy?.mark === mark && !this.copy.failed) return this.copy;
    if (this.copy) void this.discard(this.copy);
    this.copies += 1;
    const file = `${this.options.beside}-snapshot-${mark}-${this.copies}`;
    const copy: Copy = { mark, file, made: Promise.resolve(null), failed: false };
    copy.made = this.made(file).catch((error: Error) => {
      copy.failed = true;
      if (!this.closed) this.options.onFailed(`the copy for a snapshot could not be made: ${error.message}`);
      return null;
    });
    this.copy = copy;
    return copy;
  }

  private async made(file: string): Promise<{ appliedIndex: number; bytes: number; sha256: string }> {
    await fs.promises.rm(file, { force: true });
    const appliedIndex = await this.options.copy(file, () => this.closed);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
      if (this.closed) throw new Error('given up: its member stops');
      hash.update(chunk);
      bytes += chunk.length;
    }
    return { appliedIndex, bytes, sha256: hash.digest('hex') };
  }

  /** Why `transfer` can no longer arrive whole, or null: its member is dead, or the connection failed. */
  private cutOff(transfer: Transfer, connection: number): string | null {
    if (this.options.isDead?.(transfer.to)) return 'membership holds it dead';
    if (this.options.link.connection(transfer.to) !== connection) return 'the connection to it failed';
    return null;
  }

  /** Gives `transfer` up (and says why) when it can no longer arrive whole. */
  private checkCutOff(transfer: Transfer, connection: number): void {
    if (transfer.over) return;
    const why = this.cutOff(transfer, connection);
    if (why === null) return;
    throw new Error(`given up: ${why}; begun again once Raft sends the snapshot again`);
  }

  /** Superseded: removed once made (a transfer reading it already goes on reading what it opened). */
  private async discard(copy: Copy): Promise<void> {
    await copy.made;
    await fs.promises.rm(copy.file, { force: true }).catch(() => undefined);
  }

  private async run(
    message: SnapshotMessage<Data>,
    copy: Copy,
    transfer: Transfer,
    send: (message: SnapshotMessage<Data>) => void,
  ): Promise<void> {
    const made = await copy.made;
    if (made === null) transfer.over = true;
    if (made === null || transfer.over) return;
    const transferId = randomBytes(8).toString('hex');
    const body = partBodyBytes(this.options.partBytes ?? PART_BYTES);
    const count = Math.ceil(made.bytes / body);
    const { link } = this.options;
    const connection = link.connection(message.to);
    const givenUp = () => transfer.over || this.cutOff(transfer, connection) !== null;
    const handle = await fs.promises.open(copy.file, 'r');
    try {
      for (let index = 0; index < count; index += 1) {
        this.checkCutOff(transfer, connection);
        if (transfer.over) return;
        const part = Buffer.alloc(Math.min(body, made.bytes - index * body));
        const { bytesRead } = await handle.read(part, 0, part.length, index * body);
        if (bytesRead !== part.length) throw new Error(`the copy ${copy.file} is shorter than it was`);
        const fileBytes = made.bytes;
        const sent = await link.send(
          message.to,
          encodeSnapshotPart({ transfer: transferId, index, count, fileBytes, body: part }),
          givenUp,
        );
        this.checkCutOff(transfer, connection);
        if (!sent && transfer.over) return;
        if (!sent) throw new Error(`part ${index} of ${count} was dropped, or found no room in time`);
        transfer.lastProgress = this.options.clock.monotonic();
      }
    } finally {
      await handle.close();
    }
    this.checkCutOff(transfer, connection);
    if (transfer.over) return;
    transfer.over = true;
    const file = { id: transferId, bytes: made.bytes, sha256: made.sha256 };
    send({ ...message, snapshot: { ...message.snapshot, state: { appliedIndex: made.appliedIndex, file } } });
  }
}
