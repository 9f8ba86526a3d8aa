import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/sched-harness.js';
import { useVirtualDaemons, type VirtualDaemon } from '../support/virtual-daemon.js';

/** A command that runs until the test creates `release` in its working directory. */
function heldOpen(dir: string) {
  return { cwd: dir, shell: 'while [ ! -e release ]; do sleep 0.02; done' };
}

/**
 * Moves virtual time on one second at a time; after each, waits (real time, bounded) until the job's
 * ledger has the instant and every run that fired for it has its process started.
 */
async function everySecond(daemon: VirtualDaemon, job: string, seconds: number): Promise<void> {
  for (let second = 1; second <= seconds; second++) {
    await daemon.clock.advance(1_000);
    await waitFor(async () => {
      const ledger = await daemon.ledgerOf(job);
      const runs = await daemon.runsOf(job);
      return ledger.length >= second && runs.every((run) => run.state !== 'running' || run.pid !== null);
    });
  }
}

describe('concurrency policies in virtual time', () => {
  const { start } = useVirtualDaemons(afterEach);
  let dir: string;
  afterEach(() => {
    // Lets whatever is still held open end, so no process outlives its test.
    if (dir) fs.writeFileSync(path.join(dir, 'release'), '');
  });

  async function started(options: { maxConcurrent?: number } = {}): Promise<VirtualDaemon> {
    const daemon = await start(undefined, undefined, options);
    dir = daemon.home;
    return daemon;
  }

  it('given --concurrency forbid and a run longer than the period, skips each instant while it runs and says why', async () => {
    const daemon = await started();
    await daemon.add({ name: 'forbid', every: '1s', concurrency: 'forbid', ...heldOpen(dir) });

    await everySecond(daemon, 'forbid', 5);

    expect(await daemon.runsOf('forbid')).toHaveLength(1);
    const skipped = (await daemon.ledgerOf('forbid')).filter((entry) => entry.outcome === 'skipped-overlap');
    expect(skipped).toHaveLength(4);
    expect(skipped[0]!.reason).toMatch(/still running \(--concurrency forbid\)/);
    expect(await daemon.why('forbid', skipped[0]!.scheduledFor)).toMatch(
      /^forbid was due at .* and was skipped because run \S+ was still running \(--concurrency forbid\)/,
    );
  });

  it('given --concurrency allow and a run longer than the period, starts every instant beside the others', async () => {
    const daemon = await started();
    await daemon.add({ name: 'allow', every: '1s', concurrency: 'allow', ...heldOpen(dir) });

    await everySecond(daemon, 'allow', 5);

    const runs = await daemon.runsOf('allow');
    expect(runs).toHaveLength(5);
    expect(runs.every((run) => run.state === 'running')).toBe(true);
    expect(daemon.daemon.runningRuns()).toBe(5);
  });

  it('given --concurrency replace and a run longer than the period, cancels the running run for each new instant', async () => {
    const daemon = await started();
    await daemon.add({ name: 'replace', every: '1s', concurrency: 'replace', ...heldOpen(dir) });

    await everySecond(daemon, 'replace', 5);
    await waitFor(
      async () => (await daemon.runsOf('replace')).filter((run) => run.state === 'cancelled').length === 4,
    );

    const runs = await daemon.runsOf('replace');
    expect(runs).toHaveLength(5);
    const replaced = runs.filter((run) => run.state === 'cancelled');
    expect(replaced[0]!.error).toMatch(/replaced it \(--concurrency replace\)/);
    expect(runs[4]!.state).toBe('running');
  });

  it('given --concurrency queue, keeps one instant waiting, skips the rest, and starts it when the running run ends', async () => {
    const daemon = await started();
    await daemon.add({ name: 'queue', every: '1s', concurrency: 'queue', ...heldOpen(dir) });

    await everySecond(daemon, 'queue', 4);
    const ledger = await daemon.ledgerOf('queue');
    expect(
      ledger.some(
        (entry) => entry.outcome === 'skipped-overlap' && /keeps at most one waiting/.test(entry.reason),
      ),
    ).toBe(true);
    fs.writeFileSync(path.join(dir, 'release'), '');
    await waitFor(
      async () => (await daemon.runsOf('queue')).filter((run) => run.state === 'succeeded').length === 2,
    );

    const ran = (await daemon.runsOf('queue')).filter((run) => run.startedAt !== null);
    expect(ran).toHaveLength(2);
    expect(ran.every((run) => run.state === 'succeeded')).toBe(true);
    // The waiting instant starts when the running run ends (no virtual time passed), not at its own time.
    expect(ran[1]!.startedAt).toBe(ran[0]!.finishedAt);
    expect(ran[1]!.startedAt! - ran[1]!.scheduledFor).toBeGreaterThanOrEqual(1_000);
  });

  it('given --max-concurrent 1, starts the second of two runs triggered together only when the first ends', async () => {
    const daemon = await started({ maxConcurrent: 1 });
    for (const name of ['first', 'second']) await daemon.add({ name, every: '1h', ...heldOpen(dir) });
    await Promise.all([
      daemon.call('job.trigger', { ref: 'first' }),
      daemon.call('job.trigger', { ref: 'second' }),
    ]);
    await waitFor(async () => daemon.daemon.runningRuns() === 1);
    await daemon.clock.advance(60_000);
    expect(daemon.daemon.runningRuns()).toBe(1);

    fs.writeFileSync(path.join(dir, 'release'), '');
    const runs = await waitFor(async () => {
      const all = [...(await daemon.runsOf('first')), ...(await daemon.runsOf('second'))];
      return all.length === 2 && all.every((run) => run.state === 'succeeded') ? all : null;
    });

    const [a, b] = runs.sort((x, y) => x.startedAt! - y.startedAt!);
    expect(b!.startedAt).toBeGreaterThanOrEqual(a!.finishedAt!);
    expect(b!.startedAt! - b!.scheduledFor).toBeGreaterThanOrEqual(60_000);
  });
});
