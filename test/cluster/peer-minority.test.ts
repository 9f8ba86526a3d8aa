import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { leaderAgreed, peerRunsOf, peerStatus, startPeerDaemons } from '../support/peer-daemons.js';
import { sched, useDaemons, waitFor, type RunningDaemon } from '../support/sched-harness.js';

/** The instants an every-host job's command wrote to `beats` in its node's home, as it ran. */
function beatsIn(dir: string): number[] {
  const file = path.join(dir, 'beats');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

interface LedgerRow {
  scheduledFor: number;
  outcome: string;
  reason: string;
  node: string;
}

async function ledgerOf(dir: string, job: string): Promise<LedgerRow[]> {
  const result = await sched(dir, ['history', job, '--all-occurrences', '--limit', '200', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json.items as LedgerRow[];
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('peer mode: a node cut off from the majority', () => {
  const { home, start } = useDaemons(afterEach);
  const frozen = new Set<RunningDaemon>();
  afterEach(() => {
    for (const daemon of frozen) process.kill(daemon.pid, 'SIGCONT');
    frozen.clear();
  });

  it('stops its once-jobs’ runs when its lease runs out, keeps firing every-host jobs, refuses writes with NO_QUORUM, says its reads may be stale, and hands its runs over when the others are back', async () => {
    const { homes, ids, daemons } = await startPeerDaemons(3, home, start);
    await waitFor(
      async () => {
        const all = await Promise.all(homes.map(peerStatus));
        return all.every((one) => one.term > 0 && one.coordinator === all[0].coordinator);
      },
      30_000,
      200,
    );
    const added = await sched(homes[0]!, [
      'add',
      'beat',
      '--every',
      '1s',
      '--placement',
      'every-host',
      '--',
      'sh',
      '-c',
      'echo "$SCHED_SCHEDULED_FOR_MS" >> "$SCHED_HOME/beats"',
    ]);
    expect(added.code, added.stderr).toBe(0);
    await waitFor(async () => homes.every((dir) => beatsIn(dir).length >= 2), 30_000, 200);
    // A once-job's run going on node 0 when it is cut off: it must stop before the majority can run it again.
    const long = await sched(homes[1]!, [
      'add',
      'long',
      '--every',
      '1h',
      '--on',
      'index=0',
      '--',
      'sh',
      '-c',
      'echo $$ > "$SCHED_HOME/long.pid"; exec sleep 300',
    ]);
    expect(long.code, long.stderr).toBe(0);
    expect((await sched(homes[1]!, ['trigger', 'long'])).code).toBe(0);
    const longPid = await waitFor(
      async () => {
        const file = path.join(homes[0]!, 'long.pid');
        return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : null;
      },
      30_000,
      200,
    );

    // Nodes 1 and 2 freeze (SIGSTOP): node 0 is alone, a minority of one of three voters.
    const cutAt = Date.now();
    for (const daemon of daemons.slice(1)) {
      process.kill(daemon.pid, 'SIGSTOP');
      frozen.add(daemon);
    }
    const degraded = await waitFor(
      async () => {
        const status = await peerStatus(homes[0]!);
        return status.degraded ? status : null;
      },
      30_000,
      250,
    );
    expect(degraded.degraded).toMatch(/no majority of the voters reachable/);
    // Its lease on its runs runs out (5 s without sure contact) and the once-job's run is stopped.
    await waitFor(async () => !processAlive(longPid), 30_000, 250);

    const refused = await sched(homes[0]!, ['add', 'alone', '--json', '--every', '1h', '--', '/bin/true'], {
      timeoutMs: 60_000,
    });
    expect(refused.code, refused.stderr).toBe(7);
    expect(refused.json.error.code).toBe('NO_QUORUM');
    expect(refused.json.error.hint).toMatch(/of 3 voters/);
    const listed = await sched(homes[0]!, ['ls', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json.items.map((job: { name: string }) => job.name).sort()).toEqual(['beat', 'long']);
    expect(listed.json.stale).toMatch(/no majority of the voters .* may be stale/);
    const shown = await sched(homes[0]!, ['show', 'beat']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toMatch(/Note: .*may be stale/);

    // Every-host jobs need no one else: the cut-off node goes on running `beat` each second.
    const lateBeats = await waitFor(
      async () => {
        const beats = beatsIn(homes[0]!).filter((at) => at > cutAt + 12_000);
        return beats.length >= 3 ? beats : null;
      },
      45_000,
      500,
    );
    expect(lateBeats.length).toBeGreaterThanOrEqual(3);

    // The others come back: the runs node 0 made meanwhile reach the log, and every node's history.
    for (const daemon of frozen) process.kill(daemon.pid, 'SIGCONT');
    frozen.clear();
    await waitFor(
      async () => {
        const status = await peerStatus(homes[0]!);
        return status.degraded === undefined && status.term > 0 ? status : null;
      },
      30_000,
      250,
    );
    for (const dir of homes) {
      const runs = await waitFor(
        async () => {
          const all = (await peerRunsOf(dir, 'beat')).filter((run) => run.node === ids[0]);
          // Runs that ended during the partition reach the log with their end (the journal is replayed
          // in rounds, so on a loaded machine some ends come a few seconds after their runs).
          const ended = all
            .filter((run) => run.scheduledFor <= lateBeats.at(-1)!)
            .every((run) => run.state !== 'running');
          return ended && all.some((run) => run.scheduledFor === lateBeats[0]) ? all : null;
        },
        60_000,
        500,
      );
      const instants = runs.map((run) => run.scheduledFor);
      expect(new Set(instants).size, 'a run of node 0 was recorded twice').toBe(instants.length);
    }
    const longRuns = await waitFor(
      async () => {
        const all = await peerRunsOf(homes[2]!, 'long');
        return all.length === 1 && all[0]!.state !== 'running' ? all : null;
      },
      60_000,
      500,
    );
    expect(longRuns).toHaveLength(1);
    const longRun = await sched(homes[2]!, ['history', 'long', '--json']);
    expect(JSON.stringify(longRun.json.items[0])).toMatch(/lost touch with the majority/);
    const after = await sched(homes[0]!, ['add', 'after-heal', '--every', '1h', '--', '/bin/true'], {
      timeoutMs: 60_000,
    });
    expect(after.code, after.stderr).toBe(0);
  }, 180_000);

  it('journals the instants an every-host job skips for --concurrency forbid while cut off, and they reach every node’s ledger when the partition heals, with their reason and node', async () => {
    const { homes, ids, daemons } = await startPeerDaemons(3, home, start);
    await leaderAgreed(homes);
    // Only node 0 runs it, so the ledger's entries are node 0's alone (every-host-ledger has several nodes').
    const added = await sched(homes[1]!, [
      ...['add', 'slow', '--every', '1s', '--placement', 'every-host', '--on', 'index=0'],
      ...['--shell', 'sleep 3'],
    ]);
    expect(added.code, added.stderr).toBe(0);
    await waitFor(async () => (await peerRunsOf(homes[0]!, 'slow')).length >= 2, 30_000, 250);

    // Nodes 1 and 2 freeze (SIGSTOP): node 0 is alone, a minority of one of three voters, for 15 s.
    for (const daemon of daemons.slice(1)) {
      process.kill(daemon.pid, 'SIGSTOP');
      frozen.add(daemon);
    }
    await waitFor(async () => (await peerStatus(homes[0]!)).degraded !== undefined, 30_000, 250);
    const degradedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const healedAt = Date.now();
    for (const daemon of frozen) process.kill(daemon.pid, 'SIGCONT');
    frozen.clear();

    // Every instant node 0 was due while degraded ran or is in the ledger, on every node, by node 0.
    const from = degradedAt + 1_000;
    const to = healedAt - 1_000;
    for (const dir of homes) {
      let seen = '';
      await waitFor(
        async () => {
          const ran = (await peerRunsOf(dir, 'slow'))
            .filter((run) => run.node === ids[0])
            .map((run) => run.scheduledFor);
          const skips = (await ledgerOf(dir, 'slow')).filter((entry) => entry.outcome === 'skipped-overlap');
          const covered = [...new Set([...ran, ...skips.map((entry) => entry.scheduledFor)])]
            .filter((at) => at >= from && at <= to)
            .sort((a, b) => a - b);
          seen = JSON.stringify({ covered: covered.map((at) => at - from), skips });
          const whole =
            covered.length > 0 &&
            covered[0]! - from < 1_000 &&
            to - covered.at(-1)! < 1_000 &&
            covered.slice(1).every((at, index) => at - covered[index]! === 1_000);
          return whole && skips.some((entry) => entry.scheduledFor >= from && entry.scheduledFor <= to);
        },
        60_000,
        500,
      ).catch(() => expect.fail(`node ${dir}: ${seen}`));
      const skipped = (await ledgerOf(dir, 'slow')).filter(
        (entry) => entry.scheduledFor >= from && entry.scheduledFor <= to && entry.outcome !== 'ran',
      );
      expect(skipped.length).toBeGreaterThanOrEqual(3);
      for (const entry of skipped) {
        expect([entry.outcome, entry.node]).toEqual(['skipped-overlap', ids[0]]);
        expect(entry.reason).toMatch(new RegExp(`^on node ${ids[0]}: .*still running`));
      }
    }
  }, 180_000);
});
