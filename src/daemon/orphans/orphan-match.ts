import type { ProcStat } from './proc-stat.js';

/** A child the executor spawned, as it journaled it: its group is led by it (pgid = pid). */
export interface JournaledChild {
  runId: string;
  pid: number;
  /** /proc/<pid>/stat field 22 at spawn; null where it could not be read (then it is never matched). */
  startTime: string | null;
}

/** A process seen in /proc, with the run id of its environment when that is one asked about. */
export interface SeenProcess extends ProcStat {
  runId: string | null;
}

/** One process, by pid and start time, so a pid given to someone else since is never taken for it. */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

/** What to signal for a run: its whole process group, or one process of it outside any group found. */
export interface OrphanTarget {
  runId: string;
  kind: 'group' | 'process';
  /** The pgid of a group, the pid of a process. */
  id: number;
  comm: string;
  /** The processes seen in it; while one of them lives, `id` still names what was found. */
  members: ProcessIdentity[];
}

/**
 * True when `seen` is the very process that was journaled: same pid, same start time. A zombie counts: it
 * holds its pid, so no other group can have taken that number while it lingers unreaped.
 */
export function isJournaledProcess(child: JournaledChild, seen: ProcStat | undefined): boolean {
  return (
    seen !== undefined &&
    child.startTime !== null &&
    seen.pid === child.pid &&
    seen.startTime === child.startTime
  );
}

/**
 * Decides what is left of a dead daemon's runs: the group of every journaled child that still lives,
 * then every process whose environment names one of those runs (spawned just before the daemon died, before
 * its journal entry, or left by a group leader that exited), by its group when it leads one.
 */
export function planOrphanStops(
  journal: readonly JournaledChild[],
  processes: readonly SeenProcess[],
  selfPid: number,
): OrphanTarget[] {
  const live = processes.filter((seen) => seen.state !== 'Z' && seen.pid !== selfPid);
  const byPid = new Map(processes.map((seen) => [seen.pid, seen]));
  const targets: OrphanTarget[] = [];
  const groups = new Set<number>();
  const addGroup = (runId: string, leader: SeenProcess): void => {
    const members = live.filter((seen) => seen.pgid === leader.pid).map(identity);
    if (groups.has(leader.pid) || members.length === 0) return;
    groups.add(leader.pid);
    targets.push({ runId, kind: 'group', id: leader.pid, comm: leader.comm, members });
  };
  for (const child of journal) {
    const leader = byPid.get(child.pid);
    if (leader !== undefined && leader.pid !== selfPid && isJournaledProcess(child, leader))
      addGroup(child.runId, leader);
  }
  const named = live.filter((seen) => seen.runId !== null);
  for (const seen of named) if (seen.pgid === seen.pid) addGroup(seen.runId!, seen);
  for (const seen of named) {
    if (groups.has(seen.pgid)) continue;
    targets.push({
      runId: seen.runId!,
      kind: 'process',
      id: seen.pid,
      comm: seen.comm,
      members: [identity(seen)],
    });
  }
  return targets;
}

/** True while one of the processes found in the target is still alive (and not a zombie). */
export function isTargetAlive(target: OrphanTarget, processes: readonly ProcStat[]): boolean {
  return target.members.some((member) =>
    processes.some(
      (seen) => seen.pid === member.pid && seen.startTime === member.startTime && seen.state !== 'Z',
    ),
  );
}

/** How a run's record names what was stopped: "process group 1234 (sh)". */
export function describeTarget(target: OrphanTarget): string {
  return `${target.kind === 'group' ? 'process group' : 'process'} ${target.id} (${target.comm})`;
}

function identity(seen: ProcStat): ProcessIdentity {
  return { pid: seen.pid, startTime: seen.startTime };
}
