/** What the daemon needs of one line of /proc/<pid>/stat. */
export interface ProcStat {
  pid: number;
  /** The executable's name, as the kernel keeps it (at most 15 characters). */
  comm: string;
  /** R, S, D, Z (zombie: dead, not yet reaped), T… */
  state: string;
  pgid: number;
  /**
   * Field 22, clock ticks after boot at which the process started. With the pid it names one process:
   * a pid the kernel hands out again comes with a later start time.
   */
  startTime: string;
}

/**
 * Parses /proc/<pid>/stat. The name is in parentheses and may itself hold spaces and ")", so the fields
 * after it are counted from the last ")".
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // Fields 3 (state) onward; field 22 is index 19 here.
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const [state, , pgid] = rest;
  const startTime = rest[19];
  if (!Number.isInteger(pid) || state === undefined || startTime === undefined || !/^\d+$/.test(startTime))
    return null;
  return { pid, comm: text.slice(open + 1, close), state, pgid: Number(pgid), startTime };
}

/** The run id in a process's environment (/proc/<pid>/environ, NUL-separated) when it is one of `runIds`. */
export function runIdInEnviron(environ: string, runIds: ReadonlySet<string>): string | null {
  for (const variable of environ.split('\0')) {
    if (!variable.startsWith('SCHED_RUN_ID=')) continue;
    const runId = variable.slice('SCHED_RUN_ID='.length);
    return runIds.has(runId) ? runId : null;
  }
  return null;
}
