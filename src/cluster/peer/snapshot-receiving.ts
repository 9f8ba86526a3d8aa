import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { SnapshotFile } from '../../store/sqlite/sqlite-replica.js';
import type { Clock } from '../../core/clock.js';
import { decodeSnapshotPart } from './snapshot-parts.js';

/** Files being received at once: one per leader sending, and one for a leader that took over meanwhile. */
const MAX_INCOMING = 2;
/** The largest snapshot file taken (by default): the jobs and runs of one cluster are far less. */
const MAX_FILE_BYTES = 4 * 1024 ** 3;
/** Bytes received and not yet written to the file, per transfer, beyond which the disk has fallen behind. */
const MAX_UNWRITTEN_BYTES = 64 * 1024 * 1024;
/**
 * A file handed out is restored from once the restores before it are done, and removed then; one still here
 * this long after, whose snapshot the replica has gone past (it was not needed), is removed as the next
 * transfer begins.
 */
const HANDED_OUT_MS = 60_000;

export interface SnapshotReceivingOptions {
  /** Where a file received goes: this path, then `-incoming-` and the transfer's id. */
  beside: string;
  clock: Clock;
  maxFileBytes?: number;
  maxUnwrittenBytes?: number;
  /** Why a whole file cannot be restored from (another schema, not a database), or null when it can. */
  refusalOf(file: string): string | null;
  /** A part or a file refused: dropped, and counted with the peer drops. */
  onRefused(detail: string): void;
  /**
   * The log index the replica is as of: a file handed out as of a later one may still be restored from (it
   * waits behind a restore that takes long), so it stays. Default: every file is past.
   */
  appliedIndex?(): number;
}

interface Incoming {
  id: string;
  count: number;
  fileBytes: number;
  /** The place of the part expected next. */
  next: number;
  bytes: number;
  /** Bytes received and not yet written. */
  unwritten: number;
  hash: Hash;
  file: string;
  handle: Promise<FileHandle>;
  /** The writes asked for so far, in order; rejects once one failed. */
  written: Promise<void>;
}

/**
 * The follower's side of a snapshot sent as a file: the parts of each transfer, written in order to a
 * temporary file (0600) beside the Raft log and hashed as they come, until the snapshot message names the
 * file. A part out of order, of a transfer not begun, past the size the transfer declared (itself bounded),
 * or that finds too much still waiting to be written is dropped, its transfer with it, and counted; nothing
 * a peer sends makes this throw.
 */
export class SnapshotReceiving {
  private readonly incoming = new Map<string, Incoming>();
  /**
   * Files handed out whole (when, and the log index of their snapshot), removed by their taker once restored
   * from, else here later or on close.
   */
  private readonly handedOut = new Map<string, { at: number; asOf: number }>();
  private readonly maxFileBytes: number;

  constructor(private readonly options: SnapshotReceivingOptions) {
    this.maxFileBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
    removeFilesBeside(options.beside, '-incoming-');
  }

  add(bytes: Uint8Array): void {
    const part = decodeSnapshotPart(bytes);
    if (part === null) return this.options.onRefused('a snapshot part without a body');
    const { transfer, index, count, fileBytes, body } = part;
    const named = `part ${index} of ${count} of snapshot transfer ${transfer}`;
    if (index === 0) {
      if (fileBytes > this.maxFileBytes || count === 0 || fileBytes === 0)
        return this.options.onRefused(
          `${named}: a file of ${fileBytes} bytes (at most ${this.maxFileBytes})`,
        );
      this.begin(transfer, count, fileBytes);
    }
    const incoming = this.incoming.get(transfer);
    if (incoming === undefined) return this.options.onRefused(`${named}: no such transfer under way`);
    if (index !== incoming.next || count !== incoming.count)
      return this.abandon(incoming, `${named}: out of order (part ${incoming.next} expected)`);
    if (incoming.bytes + body.length > incoming.fileBytes)
      return this.abandon(incoming, `${named}: past the ${incoming.fileBytes} bytes declared`);
    const maxUnwritten = this.options.maxUnwrittenBytes ?? MAX_UNWRITTEN_BYTES;
    if (incoming.unwritten + body.length > maxUnwritten)
      return this.abandon(
        incoming,
        `${named}: over ${maxUnwritten} bytes wait to be written (the disk is slow)`,
      );
    const chunk = Buffer.from(body);
    const offset = incoming.bytes;
    incoming.next += 1;
    incoming.bytes += chunk.length;
    incoming.unwritten += chunk.length;
    incoming.hash.update(chunk);
    incoming.written = incoming.written.then(async () => {
      await (await incoming.handle).write(chunk, 0, chunk.length, offset);
      incoming.unwritten -= chunk.length;
    });
    // Its failure is told when the file is taken.
    incoming.written.catch(() => undefined);
  }

  /**
   * The file `named` names (the snapshot as of log index `asOf`), once whole and written, when its size and
   * hash match and it can be restored from; null (told to onRefused) otherwise. The file is the caller's then.
   */
  async take(named: SnapshotFile, asOf = 0): Promise<string | null> {
    const incoming = this.incoming.get(named.id);
    if (incoming === undefined) {
      this.options.onRefused(`a snapshot names file ${named.id}, not received here`);
      return null;
    }
    if (incoming.next < incoming.count)
      return this.refuse(incoming, `only ${incoming.next} of ${incoming.count} parts received`);
    this.incoming.delete(incoming.id);
    try {
      await incoming.written;
      await (await incoming.handle).close();
    } catch (error) {
      return this.refuse(incoming, `it could not be written: ${(error as Error).message}`);
    }
    const sha256 = incoming.hash.digest('hex');
    if (incoming.bytes !== named.bytes || sha256 !== named.sha256)
      return this.refuse(
        incoming,
        `${incoming.bytes} bytes of sha256 ${sha256}, not the ${named.bytes} bytes of ${named.sha256} named`,
      );
    let refusal: string | null;
    try {
      refusal = this.options.refusalOf(incoming.file);
    } catch (error) {
      refusal = (error as Error).message;
    }
    if (refusal !== null) return this.refuse(incoming, refusal);
    this.handedOut.set(incoming.file, { at: this.options.clock.monotonic(), asOf });
    return incoming.file;
  }

  /** Removes every file still here (a transfer under way, or handed out and not restored from). */
  async close(): Promise<void> {
    for (const incoming of [...this.incoming.values()]) await this.discard(incoming);
    for (const file of this.handedOut.keys()) fs.rmSync(file, { force: true });
    this.handedOut.clear();
  }

  private begin(id: string, count: number, fileBytes: number): void {
    const earlier = this.incoming.get(id);
    if (earlier !== undefined) void this.discard(earlier);
    const now = this.options.clock.monotonic();
    const applied = this.options.appliedIndex?.() ?? Number.POSITIVE_INFINITY;
    for (const [file, { at, asOf }] of this.handedOut)
      if (now - at >= HANDED_OUT_MS && asOf <= applied) {
        this.handedOut.delete(file);
        fs.rmSync(file, { force: true });
      }
    while (this.incoming.size >= MAX_INCOMING) void this.discard(this.incoming.values().next().value!);
    const file = `${this.options.beside}-incoming-${id}`;
    const handle = fs.promises.open(file, 'w', 0o600);
    handle.catch(() => undefined);
    this.incoming.set(id, {
      id,
      count,
      fileBytes,
      next: 0,
      bytes: 0,
      unwritten: 0,
      hash: createHash('sha256'),
      file,
      handle,
      written: Promise.resolve(),
    });
  }

  private abandon(incoming: Incoming, reason: string): void {
    this.options.onRefused(reason);
    void this.discard(incoming);
  }

  private async refuse(incoming: Incoming, reason: string): Promise<null> {
    this.options.onRefused(`snapshot file ${incoming.id} refused: ${reason}`);
    await this.discard(incoming);
    return null;
  }

  private async discard(incoming: Incoming): Promise<void> {
    this.incoming.delete(incoming.id);
    await incoming.written.catch(() => undefined);
    await incoming.handle.then((handle) => handle.close()).catch(() => undefined);
    await fs.promises.rm(incoming.file, { force: true });
  }
}

/** Removes the files a process before this one left beside `beside` (a transfer cut short by a stop). */
export function removeFilesBeside(beside: string, infix: string): void {
  const folder = path.dirname(beside);
  const prefix = `${path.basename(beside)}${infix}`;
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(prefix)) fs.rmSync(path.join(folder, name), { force: true });
}
