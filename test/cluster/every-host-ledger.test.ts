import { afterEach, describe, expect, it } from 'vitest';
import { leaderAgreed, startPeerDaemons } from '../support/peer-daemons.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

interface LedgerRow {
  scheduledFor: number;
  outcome: string;
  reason: string;
  node: string;
  host?: string;
}

async function ledgerOf(
  dir: string,
  args: string[] = ['--limit', '500'],
): Promise<{
  items: LedgerRow[];
  nextCursor: string | null;
}> {
  const result = await sched(dir, ['history', 'slow', '--all-occurrences', ...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json;
}

/** The instants that more than one node skipped, each with the nodes' entries of it. */
function skippedByNodes(items: readonly LedgerRow[]): Map<number, LedgerRow[]> {
  const byInstant = new Map<number, LedgerRow[]>();
  for (const entry of items.filter((item) => item.outcome === 'skipped-overlap')) {
    byInstant.set(entry.scheduledFor, [...(byInstant.get(entry.scheduledFor) ?? []), entry]);
  }
  return new Map([...byInstant].filter(([, entries]) => new Set(entries.map((e) => e.host)).size > 1));
}

const keyOf = (entry: LedgerRow) => `${entry.scheduledFor} ${entry.outcome} ${entry.host ?? ''}`;

describe('peer mode: an every-host job’s ledger keeps each node’s entry of an instant', () => {
  const { home, start } = useDaemons(afterEach);

  it('every node skips instants of a slow every-host job under --concurrency forbid, and each node’s skip of one instant is in every node’s ledger, in `sched why` and in whole pages', async () => {
    const { homes, ids } = await startPeerDaemons(3, home, start);
    await leaderAgreed(homes);
    const added = await sched(homes[0]!, [
      ...['add', 'slow', '--every', '1s', '--placement', 'every-host', '--concurrency', 'forbid'],
      ...['--shell', 'sleep 3'],
    ]);
    expect(added.code, added.stderr).toBe(0);

    // Each node runs an instant and skips the next ones while it sleeps: read from any node, one instant
    // holds the skips of more than one node.
    let instant = 0;
    for (const dir of homes) {
      const shared = await waitFor(
        async () => {
          const found = skippedByNodes((await ledgerOf(dir)).items);
          return found.size > 0 ? found : null;
        },
        40_000,
        500,
      );
      for (const entries of shared.values()) {
        for (const entry of entries) {
          expect(ids).toContain(entry.host);
          expect(entry.node).toBe(entry.host);
          expect(entry.reason).toMatch(new RegExp(`^on node ${entry.host}: .*still running`));
        }
      }
      instant ||= [...shared.keys()][0]!;
    }

    // Another node may apply the instant's last entries a moment later.
    const why = await waitFor(
      async () => {
        const asked = await sched(homes[1]!, [
          'why',
          'slow',
          '--at',
          new Date(instant).toISOString(),
          '--json',
        ]);
        expect(asked.code, asked.stderr).toBe(0);
        const told = (asked.json.entries as LedgerRow[]).filter(
          (entry) => entry.outcome === 'skipped-overlap',
        );
        return new Set(told.map((entry) => entry.host)).size > 1 ? asked : null;
      },
      10_000,
      500,
    );
    expect(why.json.sentence).toMatch(
      /^slow was due at .*: (.*; )?on node \S+ it was skipped because .*; on node \S+ it was skipped because /,
    );

    // Pages of two end between instants: paged down through a few seconds around the instant, they hold
    // every entry of it (an instant of three entries is a page of its own), each once.
    const window = { from: instant - 2_000, to: instant + 2_000 };
    const inWindow = (entry: LedgerRow) =>
      entry.scheduledFor >= window.from && entry.scheduledFor <= window.to;
    await waitFor(
      async () => {
        const paged: LedgerRow[] = [];
        let cursor: string | null = String(window.to + 1);
        while (cursor !== null && Number(cursor) > window.from) {
          const page = await ledgerOf(homes[2]!, ['--limit', '2', '--cursor', cursor]);
          expect(page.items.length).toBeGreaterThan(0);
          expect(new Set(page.items.map((entry) => entry.scheduledFor)).size).toBeLessThanOrEqual(2);
          paged.push(...page.items);
          cursor = page.nextCursor;
        }
        const keys = paged.filter(inWindow).map(keyOf);
        expect(new Set(keys).size).toBe(keys.length);
        const all = (await ledgerOf(homes[2]!)).items.filter(inWindow).map(keyOf);
        return JSON.stringify([...keys].sort()) === JSON.stringify([...all].sort());
      },
      15_000,
      1_000,
    );
  }, 120_000);
});
