import fs from 'node:fs';
import type { SeenProcess } from './orphan-match.js';
import { parseProcStat, runIdInEnviron, type ProcStat } from './proc-stat.js';

/** False where there is no Linux /proc to find processes in (macOS, say). */
export function canReadProcesses(): boolean {
  return fs.existsSync('/proc/self/stat');
}

/** The process's /proc stat line, or null once it is gone (or where there is no /proc). */
export function readProcStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Every process in /proc, with the run id of its environment when that is one of `runIds`. Another
 * user's environment cannot be read; such a process was not started by this daemon's user anyway.
 */
export function readProcessTable(runIds: ReadonlySet<string>): SeenProcess[] {
  const table: SeenProcess[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat === null) continue;
    table.push({ ...stat, runId: runIds.size === 0 ? null : readRunId(stat.pid, runIds) });
  }
  return table;
}

function readRunId(pid: number, runIds: ReadonlySet<string>): string | null {
  try {
    return runIdInEnviron(fs.readFileSync(`/proc/${pid}/environ`, 'latin1'), runIds);
  } catch {
    return null;
  }
}
