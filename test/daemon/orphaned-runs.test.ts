import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isAlive,
  makeHome,
  removeHome,
  sched,
  useDaemons,
  waitFor,
  type RunningDaemon,
} from '../support/sched-harness.js';

const KILL_CYCLES = 5;

/** The pids each run's processes wrote, by run id: the shell that leads the group, then its background sleep. */
function writtenPids(dir: string): Map<string, number[]> {
  const byRun = new Map<string, number[]>();
  for (const runId of fs.readdirSync(dir)) {
    const pids = fs
      .readFileSync(path.join(dir, runId), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
    byRun.set(runId, pids);
  }
  return byRun;
}

/** The runs that have a process alive right now. */
function runsAlive(dir: string): string[] {
  return [...writtenPids(dir)].filter(([, pids]) => pids.some(isAlive)).map(([runId]) => runId);
}

/** True while `pid` is still a process of the run `runId` (never signal a pid the kernel gave to someone else). */
function belongsToRun(pid: number, runId: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`SCHED_RUN_ID=${runId}`);
  } catch {
    return false;
  }
}

describe('a daemon restarted after kill -9', () => {
  const pidDirs: string[] = [];
  // Registered before the daemons' cleanup so it runs after it: the last daemon is killed first.
  afterEach(() => {
    for (const dir of pidDirs.splice(0)) {
      for (const [runId, pids] of writtenPids(dir))
        for (const pid of pids) if (belongsToRun(pid, runId)) process.kill(pid, 'SIGKILL');
      removeHome(dir);
    }
  });
  const { home, start } = useDaemons(afterEach);

  it('stops what is left of the killed daemon’s runs before it records them lost, so a forbid job never runs twice at once', async () => {
    const dir = home();
    const pids = makeHome('sched-pids-');
    pidDirs.push(pids);
    let daemon: RunningDaemon = await start(dir);
    const script = `f=${pids}/$SCHED_RUN_ID; echo $$ >> $f; sleep 30 & echo $! >> $f; wait`;
    const added = await sched(dir, [
      'add',
      'long',
      '--every',
      '1s',
      '--concurrency',
      'forbid',
      '--shell',
      script,
    ]);
    expect(added.code).toBe(0);

    for (let cycle = 0; cycle < KILL_CYCLES; cycle++) {
      // Given a run whose shell and its background sleep are both running
      const [runId] = await waitFor(async () => {
        const alive = runsAlive(pids);
        expect(alive.length).toBeLessThanOrEqual(1);
        const pidsOf = writtenPids(pids);
        return alive.find((id) => pidsOf.get(id)?.length === 2 && pidsOf.get(id)!.every(isAlive))
          ? alive
          : null;
      });
      const runPids = writtenPids(pids).get(runId!)!;

      // When its daemon is killed with SIGKILL and a new one starts on the same home
      daemon.process.kill('SIGKILL');
      await daemon.exited;
      const oldRuns = writtenPids(pids);
      daemon = await start(dir);

      // Then nothing of the old daemon's runs is alive once the new daemon is up
      const survivors = [...oldRuns.values()].flat().filter(isAlive);
      expect(survivors).toEqual([]);
      expect(runsAlive(pids).length).toBeLessThanOrEqual(1);
      // And the lost run's record says what was stopped
      const record = await sched(dir, ['logs', runId!, '--json']);
      expect(record.json.state).toBe('lost');
      expect(record.json.error).toContain(
        `its process group ${runPids[0]} (sh) was still running and was stopped`,
      );
    }

    expect(await daemon.stop('SIGTERM')).toBe(0);
  }, 180_000);
});
