import fs from 'node:fs';
import path from 'node:path';
import type { JournaledChild } from './orphan-match.js';
import { readProcStat } from './process-table.js';

/**
 * One small file per live command child in the daemon's home, written right after the spawn and removed
 * once the run is over. A daemon killed with SIGKILL cannot end its children; the next one reads what is
 * left here and stops those that are still the same processes (pid plus start time).
 */
export class ChildJournal {
  constructor(readonly dir: string) {}

  /** Synchronous on purpose: the entry must exist before anything else can happen to this thread. */
  record(runId: string, pid: number): void {
    const entry: JournaledChild = { runId, pid, startTime: readProcStat(pid)?.startTime ?? null };
    fs.writeFileSync(this.entryPath(runId), JSON.stringify(entry), { mode: 0o600 });
  }

  forget(runId: string): void {
    fs.rmSync(this.entryPath(runId), { force: true });
  }

  /** The children journaled and not forgotten: those of a daemon that died, when read at start. */
  read(): JournaledChild[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const entries: JournaledChild[] = [];
    for (const name of names) {
      // One half-written when its daemon died is skipped: its child is found by its environment.
      const entry = parseEntry(this.entryPath(name));
      if (entry !== null) entries.push(entry);
    }
    return entries;
  }

  /** Empties the journal; only before this daemon's executor starts, when every entry is a dead daemon's. */
  clear(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
    this.create();
  }

  /** Makes the folder; the journal is the owner's only. */
  create(): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  private entryPath(runId: string): string {
    return path.join(this.dir, path.basename(runId));
  }
}

function parseEntry(file: string): JournaledChild | null {
  try {
    const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<JournaledChild>;
    if (typeof entry.runId !== 'string' || !Number.isInteger(entry.pid)) return null;
    return {
      runId: entry.runId,
      pid: entry.pid!,
      startTime: typeof entry.startTime === 'string' ? entry.startTime : null,
    };
  } catch {
    return null;
  }
}
