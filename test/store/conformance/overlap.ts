import { describe, expect, it } from 'vitest';
import type { ConcurrencyPolicy } from '../../../src/core/policy/overlap.js';
import type { Fire, NewOccurrence, Store } from '../../../src/store/store.js';
import { createJob, newRun, outcome, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

const MINUTE = 60_000;
const DUE = T0 + MINUTE;

/** A fire of the job's instant DUE from `node`, its run asked to start now. */
function fireOf(jobId: string, concurrency: ConcurrencyPolicy, node = 'node-a', host?: string): Fire {
  return {
    jobId,
    runs: [newRun(jobId, { scheduledFor: DUE, node, state: 'running', host })],
    occurrences: [],
    expectedNextRunAt: DUE,
    nextRunAt: DUE + MINUTE,
    concurrency,
  };
}

/** A run of the job that some node started earlier and that still runs. */
async function runningOn(store: Store, jobId: string, node: string, scheduledFor = T0, host?: string) {
  return store.insertRun(newRun(jobId, { scheduledFor, node, state: 'running', host }));
}

async function runsOf(store: Store, jobId: string) {
  return (await store.listRuns({ jobId, limit: 100 })).items;
}

export function describeOverlapCases(store: CurrentStore): void {
  describe('recordFire with the job overlap policy', () => {
    it('Given a run of the job running on another node, when an instant fires under forbid, then it gets no run and the ledger names the running run and its node', async () => {
      const job = await createJob(store(), 'slow', { nextRunAt: DUE });
      const running = await runningOn(store(), job.id, 'node-b');

      const fired = await store().recordFire(fireOf(job.id, 'forbid'));

      expect(fired?.runs).toEqual([]);
      const skipped: Partial<NewOccurrence> = {
        scheduledFor: DUE,
        outcome: 'skipped-overlap',
        reason: `run ${running.id} on node node-b was still running (--concurrency forbid)`,
        node: 'node-a',
      };
      expect(fired?.occurrences).toEqual([expect.objectContaining(skipped)]);
      expect(await store().listOccurrences({ jobId: job.id, limit: 10 })).toEqual([
        expect.objectContaining(skipped),
      ]);
      expect((await runsOf(store(), job.id)).map((run) => run.id)).toEqual([running.id]);
      expect((await store().findJob(job.id))?.nextRunAt).toBe(DUE + MINUTE);
    });

    it('Given only ended and waiting runs of the job, when an instant fires under forbid, then its run starts', async () => {
      const job = await createJob(store(), 'slow', { nextRunAt: DUE });
      const ended = await runningOn(store(), job.id, 'node-b');
      await store().finishRun(ended.id, outcome());
      await store().insertRun(newRun(job.id, { scheduledFor: T0 + 1, trigger: 'retry' }));

      const fired = await store().recordFire(fireOf(job.id, 'forbid'));

      expect(fired?.runs).toEqual([expect.objectContaining({ scheduledFor: DUE, state: 'running' })]);
      expect(fired?.occurrences).toEqual([]);
    });

    it('Given a caught-up instant with its ran record, when the overlap rule skips it, then the ran record gives way to the skip', async () => {
      const job = await createJob(store(), 'slow', { nextRunAt: DUE });
      await runningOn(store(), job.id, 'node-b');
      const ran: NewOccurrence = {
        jobId: job.id,
        scheduledFor: DUE,
        wall: null,
        outcome: 'ran',
        reason: 'it was caught up',
        node: 'node-a',
        decidedAt: DUE,
      };

      const fired = await store().recordFire({ ...fireOf(job.id, 'forbid'), occurrences: [ran] });

      expect(fired?.occurrences.map((entry) => entry.outcome)).toEqual(['skipped-overlap']);
    });

    it('Given a run of the job running on another node, when an instant fires under queue, then its run waits, and the next instant is skipped while it waits', async () => {
      const job = await createJob(store(), 'queued', { nextRunAt: DUE });
      await runningOn(store(), job.id, 'node-b');

      const fired = await store().recordFire(fireOf(job.id, 'queue'));
      const next = await store().recordFire({
        ...fireOf(job.id, 'queue'),
        runs: [newRun(job.id, { scheduledFor: DUE + MINUTE, state: 'running' })],
        expectedNextRunAt: DUE + MINUTE,
        nextRunAt: DUE + 2 * MINUTE,
      });

      expect(fired?.runs).toEqual([expect.objectContaining({ scheduledFor: DUE, state: 'scheduled' })]);
      expect(next?.runs).toEqual([]);
      expect(next?.occurrences[0]?.reason).toMatch(
        new RegExp(
          `run ${fired?.runs[0]?.id} was already waiting \\(--concurrency queue keeps at most one waiting\\)`,
        ),
      );
    });

    it('Given a run of the job running on another node, when an instant fires under replace, then its run starts and the running one is named with its node to be ended', async () => {
      const job = await createJob(store(), 'fresh', { nextRunAt: DUE });
      const old = await runningOn(store(), job.id, 'node-b');

      const fired = await store().recordFire(fireOf(job.id, 'replace'));

      expect(fired?.runs).toEqual([expect.objectContaining({ scheduledFor: DUE, state: 'running' })]);
      expect(fired?.replaced).toEqual([{ id: old.id, node: 'node-b' }]);
    });

    it('Given an every-host job running on one host, when another host fires its instant under forbid, then that host runs it', async () => {
      const job = await createJob(store(), 'per-host', { nextRunAt: DUE });
      await runningOn(store(), job.id, 'node-b', T0, 'node-b');

      const fired = await store().recordFire(fireOf(job.id, 'forbid', 'node-a', 'node-a'));

      expect(fired?.runs).toEqual([expect.objectContaining({ host: 'node-a', state: 'running' })]);
    });
  });

  describe('insertRun of a run that starts alone', () => {
    it('Given a run of the job running on another node, when a manual run asked to start alone is inserted, then it waits; once that run ends, the next one starts', async () => {
      const job = await createJob(store(), 'by-hand');
      const running = await runningOn(store(), job.id, 'node-b');
      const asked = { trigger: 'manual', state: 'running', alone: true } as const;

      const waits = await store().insertRun(newRun(job.id, { scheduledFor: DUE, ...asked }));
      await store().finishRun(running.id, outcome());
      await store().cancelWaitingRun(waits.id, outcome({ state: 'cancelled' }));
      const starts = await store().insertRun(newRun(job.id, { scheduledFor: DUE + 1, ...asked }));

      expect([waits.state, starts.state]).toEqual(['scheduled', 'running']);
      expect((await store().findRun(waits.id))?.state).toBe('cancelled');
    });
  });

  describe('claimRunAlone', () => {
    it('Given another run of the job running, when a waiting run is claimed alone, then it is busy and stays waiting; once that run ends, it is claimed', async () => {
      const job = await createJob(store(), 'queued');
      const running = await runningOn(store(), job.id, 'node-b');
      const waiting = await store().insertRun(newRun(job.id, { scheduledFor: DUE }));

      const busy = await store().claimRunAlone(waiting.id, () => DUE + 1);
      await store().finishRun(running.id, outcome());
      const claimed = await store().claimRunAlone(waiting.id, () => DUE + 2);

      expect([busy, claimed]).toEqual(['busy', 'claimed']);
      expect(await store().findRun(waiting.id)).toMatchObject({ state: 'running', startedAt: DUE + 2 });
      expect(await store().claimRunAlone(waiting.id, () => DUE + 3)).toBe('gone');
    });

    it('Given two waiting runs of one job, when both are claimed alone at once, then exactly one starts', async () => {
      const job = await createJob(store(), 'queued');
      const a = await store().insertRun(newRun(job.id, { scheduledFor: DUE }));
      const b = await store().insertRun(newRun(job.id, { scheduledFor: DUE + 1, node: 'node-b' }));

      const claims = await Promise.all([
        store().claimRunAlone(a.id, () => DUE + 5),
        store().claimRunAlone(b.id, () => DUE + 5),
      ]);

      expect(claims.sort()).toEqual(['busy', 'claimed']);
    });

    it('Given a waiting run and a due instant of one job, when the claim and a forbid fire race, then exactly one run of the job is running', async () => {
      for (let round = 0; round < 5; round++) {
        const job = await createJob(store(), `race-${round}`, { nextRunAt: DUE });
        const waiting = await store().insertRun(newRun(job.id, { scheduledFor: T0, node: 'node-b' }));

        await Promise.all([
          store().claimRunAlone(waiting.id, () => DUE),
          store().recordFire(fireOf(job.id, 'forbid')),
        ]);

        const running = (await runsOf(store(), job.id)).filter((run) => run.state === 'running');
        expect(running).toHaveLength(1);
      }
    });
  });
}
