import type { LogEntry } from './raft-messages.js';

/** Where a log starts after compaction: the last entry a snapshot covers. */
export interface LogStart {
  index: number;
  term: number;
  /** The voters as of `index`, when a snapshot says. */
  voters?: readonly string[];
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
  /** The indexes of configuration entries after the start, ascending. */
  private configIndexes: number[] = [];

  constructor(start: LogStart = { index: 0, term: 0 }, entries: readonly LogEntry<Data>[] = []) {
    entries.forEach((entry, position) => {
      if (entry.index !== start.index + position + 1)
        throw new RangeError(`log entry ${start.index + position + 1} has index ${entry.index}`);
    });
    this.start = { ...start };
    this.entries = [...entries];
    this.configIndexes = this.entries.filter((entry) => entry.voters).map((entry) => entry.index);
  }

  /** The voters of the latest configuration in the log (or its snapshot); undefined when none is. */
  get latestVoters(): readonly string[] | undefined {
    return this.votersAt(this.lastIndex);
  }

  /** The index of the latest configuration entry in the log; the start's index when there is none. */
  get latestConfigIndex(): number {
    return this.configIndexes.at(-1) ?? this.start.index;
  }

  /**
   * The term the latest configuration was made in: its entry's, or the start's when only a snapshot says
   * (the term of the snapshot's last entry, which is no earlier); undefined when neither holds one.
   */
  get latestConfigTerm(): number | undefined {
    const index = this.configIndexes.at(-1);
    if (index !== undefined) return this.termAt(index);
    return this.start.voters ? this.start.term : undefined;
  }

  /** Whether a configuration made in `term` or later is at or before `index` (then committed, given the commit index). */
  hasConfigSince(term: number, index: number): boolean {
    for (let position = this.configIndexes.length - 1; position >= 0; position--) {
      const configIndex = this.configIndexes[position]!;
      if (configIndex <= index) return this.termAt(configIndex)! >= term;
    }
    return this.start.voters !== undefined && this.start.term >= term;
  }

  /** The voters in force at `index` (after the start), as far as the log and its snapshot say. */
  votersAt(index: number): readonly string[] | undefined {
    for (let position = this.configIndexes.length - 1; position >= 0; position--) {
      const configIndex = this.configIndexes[position]!;
      if (configIndex <= index) return this.entryAt(configIndex)!.voters;
    }
    return this.start.voters;
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

  /**
   * Up to `max` entries from `from` on; with `bytes`, also no more than `bytes.max` of them as
   * `bytes.of` counts (the first entry whatever its size).
   */
  slice(
    from: number,
    max: number,
    bytes?: { max: number; of: (entry: LogEntry<Data>) => number },
  ): LogEntry<Data>[] {
    const offset = from - this.start.index - 1;
    const entries = this.entries.slice(offset, offset + max);
    if (bytes === undefined) return entries;
    let total = 0;
    const fits = entries.findIndex((entry, count) => (total += bytes.of(entry)) > bytes.max && count > 0);
    return fits < 0 ? entries : entries.slice(0, fits);
  }

  /** Whether a log ending at `index` with `term` is at least as up to date as this one (§5.4.1). */
  isUpToDate(index: number, term: number): boolean {
    return term > this.lastTerm || (term === this.lastTerm && index >= this.lastIndex);
  }

  append(term: number, data: Data, voters?: readonly string[]): LogEntry<Data> {
    const entry: LogEntry<Data> = { index: this.lastIndex + 1, term, data, ...(voters ? { voters } : {}) };
    this.push(entry);
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
      if (existing !== undefined) this.truncateFrom(entry.index);
      if (entry.index !== this.lastIndex + 1)
        throw new RangeError(`entry ${entry.index} leaves a gap after ${this.lastIndex}`);
      this.push(entry);
    }
  }

  /** Drops the entries up to `index`, which a snapshot now covers. */
  compact(index: number): void {
    const term = this.termAt(index);
    if (index <= this.start.index || term === undefined)
      throw new RangeError(
        `cannot compact to ${index}: the log holds ${this.start.index + 1}..${this.lastIndex}`,
      );
    const voters = this.votersAt(index);
    this.entries = this.entries.slice(index - this.start.index);
    this.configIndexes = this.configIndexes.filter((configIndex) => configIndex > index);
    this.start = { index, term, ...(voters ? { voters } : {}) };
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
    this.configIndexes = [];
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

  private push(entry: LogEntry<Data>): void {
    this.entries.push(entry);
    if (entry.voters) this.configIndexes.push(entry.index);
    this.markDirty(entry.index);
  }

  private truncateFrom(index: number): void {
    this.entries.length = index - this.start.index - 1;
    this.configIndexes = this.configIndexes.filter((configIndex) => configIndex < index);
  }

  private markDirty(index: number): void {
    this.dirtyFrom = this.dirtyFrom === null ? index : Math.min(this.dirtyFrom, index);
  }
}
