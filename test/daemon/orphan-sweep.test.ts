import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signalProcessGroup } from '../../src/daemon/executor/process-group.js';
import { ChildJournal } from '../../src/daemon/orphans/child-journal.js';
import { stopOrphanedRuns } from '../../src/daemon/orphans/orphan-sweep.js';
import { readProcStat } from '../../src/daemon/orphans/process-table.js';
import { isAlive, makeHome, removeHome, waitFor } from '../support/sched-harness.js';
import { childEnv } from '../support/child-env.js';

const RUN = '0193a0b1-0000-7000-8000-0000000000aa';
const LEFTOVER_RUN = '0193a0b1-0000-7000-8000-0000000000bb';

describe('stopping what a dead daemon’s runs left running', () => {
  const children: ChildProcess[] = [];
  const homes: string[] = [];
  afterEach(() => {
    // The whole group: a shell killed alone would leave its sleep behind.
    for (const child of children.splice(0)) signalProcessGroup(child.pid!, 'SIGKILL');
    for (const home of homes.splice(0)) removeHome(home);
  });

  /** A process group led by a shell, as the executor starts one; `script` runs in it. */
  async function startGroup(script: string, env: Record<string, string> = {}): Promise<number> {
    const child = spawn('/bin/sh', ['-c', script], {
      detached: true,
      stdio: 'ignore',
      env: childEnv(env),
    });
    children.push(child);
    await waitFor(async () => readProcStat(child.pid!) !== null);
    return child.pid!;
  }

  function journalIn(): ChildJournal {
    const home = makeHome('sched-journal-');
    homes.push(home);
    const journal = new ChildJournal(path.join(home, 'children'));
    journal.create();
    return journal;
  }

  it('stops a journaled group that is still the same process, and empties the journal', async () => {
    const journal = journalIn();
    const pid = await startGroup('sleep 30 & wait');
    journal.record(RUN, pid);

    const sweep = await stopOrphanedRuns({ journal, leftoverRunIds: [], graceMs: 2_000 });

    expect(sweep).toEqual({ checked: true, stopped: new Map([[RUN, [`process group ${pid} (sh)`]]]) });
    expect(isAlive(pid)).toBe(false);
    expect(fs.readdirSync(journal.dir)).toEqual([]);
  });

  it('leaves alone a process that holds a journaled pid but started at another time', async () => {
    const journal = journalIn();
    const pid = await startGroup('sleep 30');
    fs.writeFileSync(path.join(journal.dir, RUN), JSON.stringify({ runId: RUN, pid, startTime: '1' }));

    const sweep = await stopOrphanedRuns({ journal, leftoverRunIds: [], graceMs: 2_000 });

    expect(sweep).toEqual({ checked: true, stopped: new Map() });
    expect(isAlive(pid)).toBe(true);
  });

  it('finds a leftover run’s group by SCHED_RUN_ID when it never reached the journal, and kills one that ignores SIGTERM', async () => {
    const journal = journalIn();
    const pid = await startGroup("trap '' TERM; sleep 30 & wait", { SCHED_RUN_ID: LEFTOVER_RUN });

    const sweep = await stopOrphanedRuns({ journal, leftoverRunIds: [LEFTOVER_RUN], graceMs: 500 });

    expect(sweep).toEqual({
      checked: true,
      stopped: new Map([[LEFTOVER_RUN, [`process group ${pid} (sh)`]]]),
    });
    expect(isAlive(pid)).toBe(false);
  });
});
