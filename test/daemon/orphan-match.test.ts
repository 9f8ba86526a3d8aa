import { describe, expect, it } from 'vitest';
import {
  describeTarget,
  isJournaledProcess,
  isTargetAlive,
  planOrphanStops,
  type JournaledChild,
  type SeenProcess,
} from '../../src/daemon/orphans/orphan-match.js';
import { parseProcStat, runIdInEnviron } from '../../src/daemon/orphans/proc-stat.js';

const RUN = '0193a0b1-0000-7000-8000-000000000001';
const OTHER_RUN = '0193a0b1-0000-7000-8000-000000000002';
const SELF = 99;

function seen(pid: number, fields: Partial<SeenProcess> = {}): SeenProcess {
  return { pid, comm: 'sleep', state: 'S', pgid: pid, startTime: '5000', runId: null, ...fields };
}

describe('reading /proc/<pid>/stat', () => {
  it('takes the name from between the first "(" and the last ")", and counts the fields after it', () => {
    const line =
      '4242 (my (odd) name) S 1 4240 4240 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 50 18446744073709551615';
    expect(parseProcStat(line)).toEqual({
      pid: 4242,
      comm: 'my (odd) name',
      state: 'S',
      pgid: 4240,
      startTime: '987654',
    });
  });

  it('gives null for text that is not a stat line', () => {
    expect(parseProcStat('')).toBeNull();
    expect(parseProcStat('12 (sh) S 1')).toBeNull();
  });
});

describe('finding a run id in an environment', () => {
  it('names the run when SCHED_RUN_ID is one asked about, and nothing otherwise', () => {
    const environ = `PATH=/bin\0SCHED_RUN_ID=${RUN}\0HOME=/root\0`;
    expect(runIdInEnviron(environ, new Set([RUN]))).toBe(RUN);
    expect(runIdInEnviron(environ, new Set([OTHER_RUN]))).toBeNull();
    expect(runIdInEnviron('PATH=/bin\0', new Set([RUN]))).toBeNull();
  });
});

describe('deciding what a dead daemon left running', () => {
  const child: JournaledChild = { runId: RUN, pid: 300, startTime: '5000' };

  it('stops the group of a journaled child that is still the same process', () => {
    const member = seen(301, { pgid: 300, startTime: '5001' });
    const targets = planOrphanStops([child], [seen(300, { comm: 'sh' }), member], SELF);
    expect(targets).toEqual([
      {
        runId: RUN,
        kind: 'group',
        id: 300,
        comm: 'sh',
        members: [
          { pid: 300, startTime: '5000' },
          { pid: 301, startTime: '5001' },
        ],
      },
    ]);
    expect(describeTarget(targets[0]!)).toBe('process group 300 (sh)');
  });

  it('leaves alone a process that got the journaled pid later (another start time)', () => {
    const reused = seen(300, { startTime: '9000', comm: 'postgres' });
    expect(isJournaledProcess(child, reused)).toBe(false);
    expect(planOrphanStops([child], [reused], SELF)).toEqual([]);
  });

  it('leaves alone a journaled child whose start time could not be read', () => {
    expect(planOrphanStops([{ ...child, startTime: null }], [seen(300)], SELF)).toEqual([]);
  });

  it('stops the live members of a journaled group whose leader is an unreaped zombie, and nothing when none live', () => {
    const zombie = seen(300, { state: 'Z', comm: 'sh' });
    const member = seen(301, { pgid: 300, startTime: '5001' });
    expect(planOrphanStops([child], [zombie, member], SELF)).toEqual([
      { runId: RUN, kind: 'group', id: 300, comm: 'sh', members: [{ pid: 301, startTime: '5001' }] },
    ]);
    expect(planOrphanStops([child], [zombie], SELF)).toEqual([]);
  });

  it('finds a run’s process by its environment when it was never journaled, by its group when it leads one', () => {
    const leader = seen(400, { runId: RUN, comm: 'sh' });
    const member = seen(401, { pgid: 400, runId: RUN });
    const strayed = seen(500, { pgid: 1, runId: OTHER_RUN });
    const targets = planOrphanStops([], [member, leader, strayed], SELF);
    expect(targets.map(describeTarget)).toEqual(['process group 400 (sh)', 'process 500 (sleep)']);
    expect(targets.map((target) => target.runId)).toEqual([RUN, OTHER_RUN]);
  });

  it('never stops the daemon itself', () => {
    expect(planOrphanStops([], [seen(SELF, { runId: RUN })], SELF)).toEqual([]);
  });

  it('counts a target alive while one process seen in it lives with the same start time', () => {
    const [target] = planOrphanStops([child], [seen(300)], SELF);
    expect(isTargetAlive(target!, [seen(300)])).toBe(true);
    expect(isTargetAlive(target!, [seen(300, { startTime: '9000' })])).toBe(false);
    expect(isTargetAlive(target!, [seen(300, { state: 'Z' })])).toBe(false);
    expect(isTargetAlive(target!, [])).toBe(false);
  });
});
