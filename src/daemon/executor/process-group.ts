/**
 * Signals every process in the group led by `pid` (children are spawned detached, so pid = pgid).
 * Returns false when the group is already gone; never throws, because a group can vanish between
 * any check and the kill.
 */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  // A pid of 0 or 1 would turn -pid into "our own group" or "every process we may signal".
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
