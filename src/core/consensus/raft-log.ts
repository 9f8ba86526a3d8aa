import type { LogEntry } from './raft-messages.js';

/** Where a log starts after compaction: the last entry a snapshot covers. */
export interface LogStart {
  index: number;
  term: number;
}

/**
 * A node's copy of the replicated log: the entries after its snapshot (index 0, term 0 when it has
 * none, the empty prefix of the Raft paper). The lowest index rewritten since the host last persisted
 * the log is kept, so the host writes only the changed suffix.
 */
export class RaftLog<Data> {
  private entries: LogEntry<Data>[];
  private start: LogStart;
  private dirtyFrom: number | null = null;

  constructor(start: LogStart = { index: 0, term: 0 }, entries: readonly LogEntry<Data>[] = []) {
    entries.forEach((entry, position) => {
      if (entry.index !== start.index + position + 1)
        throw new RangeError(`log entry ${start.index + position + 1} has index ${entry.index}`);
    });
    this.start = { ...start };
    this.entries = [...entries];
  }

  /** The last index a snapshot covers (0 when none does): entries up to it are gone from the log. */
  get snapshotIndex(): number {
    return this.start.index;
  }

  get lastIndex(): number {
    return this.start.index + this.entries.length;
  }

  get lastTerm(): number {
    return this.entries.at(-1)?.term ?? this.start.term;
  }

  /** The term of the entry at `index`; the snapshot's at its index; undefined past the end or compacted. */
  termAt(index: number): number | undefined {
    if (index === this.start.index) return this.start.term;
    return this.entryAt(index)?.term;
  }

  entryAt(index: number): LogEntry<Data> | undefined {
    return index > this.start.index ? this.entries[index - this.start.index - 1] : undefined;
  }

  /** Entries from `from` (after the snapshot) up to `max` of them. */
  slice(from: number, max: number): LogEntry<Data>[] {
    const offset = from - this.start.index - 1;
    return this.entries.slice(offset, offset + max);
  }

  /** Whether a log ending at `index` with `term` is at least as up to date as this one (§5.4.1). */
  isUpToDate(index: number, term: number): boolean {
    return term > this.lastTerm || (term === this.lastTerm && index >= this.lastIndex);
  }

  append(term: number, data: Data): LogEntry<Data> {
    const entry = { index: this.lastIndex + 1, term, data };
    this.entries.push(entry);
    this.markDirty(entry.index);
    return entry;
  }

  /**
   * Takes a leader's entries that follow a matching prefix. An entry already here with the same term is
   * the same entry (Log Matching) and is kept; the first one whose term differs, and everything after
   * it, is replaced. A stale, shorter message therefore never cuts off entries it does not contradict.
   */
  merge(entries: readonly LogEntry<Data>[]): void {
    for (const entry of entries) {
      if (entry.index <= this.start.index) continue;
      const existing = this.termAt(entry.index);
      if (existing === entry.term) continue;
      if (existing !== undefined) this.entries.length = entry.index - this.start.index - 1;
      if (entry.index !== this.lastIndex + 1)
        throw new RangeError(`entry ${entry.index} leaves a gap after ${this.lastIndex}`);
      this.entries.push(entry);
      this.markDirty(entry.index);
    }
  }

  /** Drops the entries up to `index`, which a snapshot now covers. */
  compact(index: number): void {
    const term = this.termAt(index);
    if (index <= this.start.index || term === undefined)
      throw new RangeError(
        `cannot compact to ${index}: the log holds ${this.start.index + 1}..${this.lastIndex}`,
      );
    this.entries = this.entries.slice(index - this.start.index);
    this.start = { index, term };
  }

  /**
   * Starts the log at a snapshot a leader sent. Entries after it are kept when the log has the
   * snapshot's last entry (they may be the leader's too); otherwise the whole log gives way to it.
   */
  restore(start: LogStart): void {
    if (
      start.index <= this.lastIndex &&
      this.termAt(start.index) === start.term &&
      start.index > this.start.index
    )
      return this.compact(start.index);
    this.entries = [];
    this.start = { ...start };
    this.markDirty(start.index + 1);
  }

  /** The changed suffix since the last call: write it over what is stored from `from` on. */
  takeChanges(): { from: number; entries: LogEntry<Data>[] } | null {
    if (this.dirtyFrom === null) return null;
    const from = Math.max(this.dirtyFrom, this.start.index + 1);
    this.dirtyFrom = null;
    return { from, entries: this.slice(from, Number.MAX_SAFE_INTEGER) };
  }

  private markDirty(index: number): void {
    this.dirtyFrom = this.dirtyFrom === null ? index : Math.min(this.dirtyFrom, index);
  }
}
