import { afterEach, describe, expect, it } from 'vitest';
import { peerRunsOf, peerStatus, startPeerDaemons } from '../support/peer-daemons.js';
import { sched, useDaemons, waitFor, type RunningDaemon } from '../support/sched-harness.js';

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

describe('peer mode: a node cut off from the majority, with an every-host job whose runs overlap its instants', () => {
  const { home, start } = useDaemons(afterEach);
  const frozen = new Set<RunningDaemon>();
  afterEach(() => {
    for (const daemon of frozen) process.kill(daemon.pid, 'SIGCONT');
    frozen.clear();
  });

  it('the instants it skips for --concurrency forbid while cut off reach every node’s ledger when the partition heals, with their reason and node', async () => {
    const { homes, ids, daemons } = await startPeerDaemons(3, home, start);
    await waitFor(
      async () => {
        const all = await Promise.all(homes.map(peerStatus));
        return all.every((one) => one.term > 0 && one.coordinator === all[0].coordinator);
      },
      30_000,
      200,
    );
    // Only node 0 runs it: the ledger keeps one entry an instant, so the instants are node 0's alone.
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
