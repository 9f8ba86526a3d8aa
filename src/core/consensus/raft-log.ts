import type { LogEntry } from './raft-messages.js';

/**
 * A node's copy of the replicated log: entries 1..lastIndex, with index 0 standing for the empty
 * prefix (term 0), as in the Raft paper. Lowest index rewritten since the host last persisted it is
 * kept, so the host writes only the changed suffix.
 */
export class RaftLog<Data> {
  private readonly entries: LogEntry<Data>[];
  private dirtyFrom: number | null = null;

  constructor(entries: readonly LogEntry<Data>[] = []) {
    entries.forEach((entry, position) => {
      if (entry.index !== position + 1)
        throw new RangeError(`log entry ${position + 1} has index ${entry.index}`);
    });
    this.entries = [...entries];
  }

  get lastIndex(): number {
    return this.entries.length;
  }

  get lastTerm(): number {
    return this.entries.at(-1)?.term ?? 0;
  }

  /** The term of the entry at `index`; 0 for index 0; undefined past the end. */
  termAt(index: number): number | undefined {
    if (index === 0) return 0;
    return this.entries[index - 1]?.term;
  }

  entryAt(index: number): LogEntry<Data> | undefined {
    return this.entries[index - 1];
  }

  /** Entries from `from` up to `max` of them. */
  slice(from: number, max: number): LogEntry<Data>[] {
    return this.entries.slice(from - 1, from - 1 + max);
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
      const existing = this.termAt(entry.index);
      if (existing === entry.term) continue;
      if (existing !== undefined) this.entries.length = entry.index - 1;
      if (entry.index !== this.lastIndex + 1)
        throw new RangeError(`entry ${entry.index} leaves a gap after ${this.lastIndex}`);
      this.entries.push(entry);
      this.markDirty(entry.index);
    }
  }

  /** The changed suffix since the last call: write it over what is stored from `from` on. */
  takeChanges(): { from: number; entries: LogEntry<Data>[] } | null {
    if (this.dirtyFrom === null) return null;
    const from = this.dirtyFrom;
    this.dirtyFrom = null;
    return { from, entries: this.entries.slice(from - 1) };
  }

  private markDirty(index: number): void {
    this.dirtyFrom = this.dirtyFrom === null ? index : Math.min(this.dirtyFrom, index);
  }
}
