import { describe, expect, it } from 'vitest';
import type { Job, JobDefinition } from '../../../src/core/job.js';
import type { Store } from '../../../src/store/store.js';
import { createJob, definition, newJob, stamp, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

async function createDependent(
  store: Store,
  name: string,
  links: Pick<JobDefinition, 'after' | 'afterAll'>,
): Promise<Job> {
  const input = newJob(name);
  return store.createJob({ ...input, definition: definition(name, links) }, stamp('job.create'));
}

const ids = (jobs: Job[]) => jobs.map((job) => job.id);

export function describeDependencyCases(store: CurrentStore): void {
  describe('listDependents and listDependencyEdges', () => {
    it('Given a job after two upstreams and after-all one of them, when dependents and edges are listed, then it is each upstream’s dependent once and every link is an edge', async () => {
      const extract = await createJob(store(), 'extract');
      const load = await createJob(store(), 'load');
      await createJob(store(), 'unrelated');
      const report = await createDependent(store(), 'report', {
        after: [
          { job: extract.id, on: 'success' },
          { job: load.id, on: 'failure' },
        ],
        afterAll: [extract.id],
      });

      expect(ids(await store().listDependents(extract.id))).toEqual([report.id]);
      expect(ids(await store().listDependents(load.id))).toEqual([report.id]);
      expect(await store().listDependents(report.id)).toEqual([]);
      expect(await store().listDependents(extract.id)).toEqual([await store().findJob(report.id)]);
      expect(sortEdges(await store().listDependencyEdges())).toEqual(
        sortEdges([
          { job: report.id, upstream: extract.id, on: 'success' },
          { job: report.id, upstream: load.id, on: 'failure' },
          { job: report.id, upstream: extract.id, on: 'all' },
        ]),
      );
    });

    it('Given two jobs after one upstream, when its dependents are listed, then both come back', async () => {
      const upstream = await createJob(store(), 'upstream');
      const first = await createDependent(store(), 'first', {
        after: [{ job: upstream.id, on: 'always' }],
        afterAll: [],
      });
      const second = await createDependent(store(), 'second', { after: [], afterAll: [upstream.id] });

      expect(ids(await store().listDependents(upstream.id)).sort()).toEqual([first.id, second.id].sort());
    });

    it('Given a definition naming one upstream twice the same way, when the job is created, then it is stored with one edge', async () => {
      const upstream = await createJob(store(), 'upstream');

      const job = await createDependent(store(), 'twice', {
        after: [
          { job: upstream.id, on: 'success' },
          { job: upstream.id, on: 'success' },
        ],
        afterAll: [upstream.id, upstream.id],
      });

      expect(job.after).toHaveLength(2);
      expect(sortEdges(await store().listDependencyEdges())).toEqual(
        sortEdges([
          { job: job.id, upstream: upstream.id, on: 'success' },
          { job: job.id, upstream: upstream.id, on: 'all' },
        ]),
      );
    });

    it('Given a dependent job, when its definition changes to another upstream, then its edges follow the new definition', async () => {
      const before = await createJob(store(), 'before');
      const after = await createJob(store(), 'after');
      const job = await createDependent(store(), 'report', {
        after: [{ job: before.id, on: 'success' }],
        afterAll: [],
      });

      await store().updateJob(
        job.id,
        1,
        { definition: definition('report', { after: [], afterAll: [after.id] }) },
        stamp('job.update'),
      );

      expect(await store().listDependents(before.id)).toEqual([]);
      expect(ids(await store().listDependents(after.id))).toEqual([job.id]);
      expect(await store().listDependencyEdges()).toEqual([{ job: job.id, upstream: after.id, on: 'all' }]);
    });

    it('Given a dependent job, when it is paused (a change without a definition), then it keeps its edges and is still a dependent', async () => {
      const upstream = await createJob(store(), 'upstream');
      const job = await createDependent(store(), 'report', {
        after: [{ job: upstream.id, on: 'success' }],
        afterAll: [],
      });

      await store().updateJob(job.id, 1, { state: 'paused' }, stamp('job.pause'));

      expect(await store().listDependents(upstream.id)).toMatchObject([{ id: job.id, state: 'paused' }]);
      expect(await store().listDependencyEdges()).toEqual([
        { job: job.id, upstream: upstream.id, on: 'success' },
      ]);
    });

    it('Given a dependent job, when it is cancelled, then it is no longer a dependent and its edges are gone', async () => {
      const upstream = await createJob(store(), 'upstream');
      const job = await createDependent(store(), 'report', {
        after: [{ job: upstream.id, on: 'success' }],
        afterAll: [upstream.id],
      });

      await store().cancelJob(job.id, 1, T0 + 1, stamp('job.cancel', T0 + 1));

      expect(await store().listDependents(upstream.id)).toEqual([]);
      expect(await store().listDependencyEdges()).toEqual([]);
    });

    it('Given a dependent whose upstream is cancelled, when edges are listed, then the link to the cancelled job is left out', async () => {
      const gone = await createJob(store(), 'gone');
      const kept = await createJob(store(), 'kept');
      const job = await createDependent(store(), 'report', {
        after: [
          { job: gone.id, on: 'success' },
          { job: kept.id, on: 'success' },
        ],
        afterAll: [],
      });

      await store().cancelJob(gone.id, 1, T0 + 1, stamp('job.cancel', T0 + 1));

      expect(await store().listDependencyEdges()).toEqual([
        { job: job.id, upstream: kept.id, on: 'success' },
      ]);
    });

    it('Given a cancelled upstream with a live dependent, when cancelled jobs are purged, then the upstream goes and the dependent keeps its definition', async () => {
      const gone = await createJob(store(), 'gone');
      const job = await createDependent(store(), 'report', {
        after: [{ job: gone.id, on: 'success' }],
        afterAll: [],
      });
      await store().cancelJob(gone.id, 1, T0 + 1, stamp('job.cancel', T0 + 1));

      expect(await store().purgeCancelledJobs(T0 + 60_000, 100)).toBe(1);

      expect(await store().findJob(gone.id)).toBeNull();
      expect((await store().findJob(job.id))?.after).toEqual([{ job: gone.id, on: 'success' }]);
    });
  });

  describe('time policy and links in the definition', () => {
    it('Given a job with a non-default time policy and links, when it is read back, then they are kept as written', async () => {
      const upstream = await createJob(store(), 'upstream');
      const input = newJob('report');
      const written = definition('report', {
        schedule: { kind: 'none' },
        policy: {
          concurrency: 'queue',
          misfire: {
            policy: { kind: 'count', count: 3 },
            catchupWindowMs: 60_000,
            skipIfNextWithinMs: 5_000,
          },
          dst: { gap: 'skip', repeat: 'both' },
          spreadMs: 300_000,
          jitterMs: 1_000,
        },
        after: [{ job: upstream.id, on: 'failure' }],
        afterAll: [upstream.id],
      });

      const job = await store().createJob(
        { ...input, definition: written, nextRunAt: null },
        stamp('job.create'),
      );

      expect(await store().findJob(job.id)).toEqual({ ...job, ...written });
    });
  });
}

function sortEdges<T extends { job: string; upstream: string; on: string }>(edges: T[]): T[] {
  const key = (edge: T) => `${edge.job} ${edge.upstream} ${edge.on}`;
  return [...edges].sort((a, b) => key(a).localeCompare(key(b)));
}
