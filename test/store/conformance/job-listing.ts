import { describe, expect, it } from 'vitest';
import type { Job, JobDefinition } from '../../../src/core/job.js';
import { DEFAULT_BREAKER_SETTINGS } from '../../../src/core/job-defaults.js';
import type { Alerts } from '../../../src/core/notify/alerts.js';
import type { JobState } from '../../../src/core/job.js';
import type { JobQuery, Store } from '../../../src/store/store.js';
import { createJob, definition, newJob, stamp, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

async function createJobs(store: Store, count: number): Promise<Job[]> {
  const jobs: Job[] = [];
  for (let index = 0; index < count; index += 1) jobs.push(await createJob(store, `job-${index}`));
  return jobs;
}

interface MixedJob {
  id: string;
  state: JobState;
  owner: string;
  nextRunAt: number | null;
}

/**
 * `count` jobs whose states and owners alternate in id order at different periods (active, active, active,
 * paused, cancelled; bob every third; no next instant every seventh, as done one-shot jobs), so that each
 * state's and owner's jobs lie between the others' on every page.
 */
async function createMixedJobs(store: Store, count: number): Promise<MixedJob[]> {
  const jobs: MixedJob[] = [];
  for (let index = 0; index < count; index += 1) {
    const state = (['active', 'active', 'active', 'paused', 'cancelled'] as const)[index % 5]!;
    const owner = index % 3 === 0 ? 'bob' : 'alice';
    const paused = state === 'paused' ? { state, nextRunAt: null } : {};
    const withoutNextRun = index % 7 === 0 ? { nextRunAt: null } : {};
    const job = await createJob(store, `mixed-${index}`, { owner, ...paused, ...withoutNextRun });
    if (state === 'cancelled') await store.cancelJob(job.id, job.version, T0 + 1, stamp('job.cancel'));
    jobs.push({ id: job.id, state, owner, nextRunAt: job.nextRunAt });
  }
  return jobs;
}

/** Every page of a listing, following each page's cursor to the end. */
async function listEveryPage(store: Store, query: JobQuery): Promise<Job[][]> {
  const pages: Job[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listJobs({ ...query, cursor });
    pages.push(page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length <= 100);
  return pages;
}

const PAGED_FILTERS: [string, Omit<JobQuery, 'limit'>][] = [
  ['the live jobs (no filter)', {}],
  ['the active jobs', { states: ['active'] }],
  ['the paused jobs', { states: ['paused'] }],
  ['the cancelled jobs', { states: ['cancelled'] }],
  ['the active and cancelled jobs', { states: ['cancelled', 'active'] }],
  ['the jobs of every state', { states: ['active', 'paused', 'cancelled'] }],
  ["bob's live jobs", { owner: 'bob' }],
  ["bob's paused jobs", { owner: 'bob', states: ['paused'] }],
  ["alice's jobs of every state", { owner: 'alice', states: ['paused', 'cancelled', 'active'] }],
  ['the active jobs with no next instant', { states: ['active'], withoutNextRun: true }],
  ["bob's live jobs with no next instant", { owner: 'bob', withoutNextRun: true }],
];

function matches(job: MixedJob, filter: Omit<JobQuery, 'limit'>): boolean {
  return (
    (filter.states ?? ['active', 'paused']).includes(job.state) &&
    (filter.owner === undefined || job.owner === filter.owner) &&
    (!filter.withoutNextRun || job.nextRunAt === null)
  );
}

function switchEvery(expectSuccessEveryMs: number | null): Alerts {
  return { notify: [], notifyOn: null, expectSuccessEveryMs };
}

export function describeJobListingCases(store: CurrentStore): void {
  const withSwitch = (name: string, every: number | null) => {
    const job = { ...newJob(name), definition: definition(name, { alerts: switchEvery(every) }) };
    return store().createJob(job, stamp('job.create'));
  };

  describe('listJobs', () => {
    it('Given seven jobs, when they are listed three at a time, then three pages hold each job once in id order', async () => {
      const jobs = await createJobs(store(), 7);

      const first = await store().listJobs({ limit: 3 });
      const second = await store().listJobs({ limit: 3, cursor: first.nextCursor ?? undefined });
      const third = await store().listJobs({ limit: 3, cursor: second.nextCursor ?? undefined });

      expect([first, second, third].map((page) => page.items.length)).toEqual([3, 3, 1]);
      expect([...first.items, ...second.items, ...third.items].map((job) => job.id)).toEqual(
        jobs.map((job) => job.id).sort(),
      );
      expect(third.nextCursor).toBeNull();
    });

    it.each(PAGED_FILTERS)(
      'Given 40 jobs of three states and two owners, interleaved, when %s are listed 3 at a time, then the pages hold each of them once, in id order',
      async (_, filter) => {
        const jobs = await createMixedJobs(store(), 40);
        const expected = jobs
          .filter((job) => matches(job, filter))
          .map((job) => job.id)
          .sort();

        const pages = await listEveryPage(store(), { ...filter, limit: 3 });

        expect(pages.flat().map((job) => job.id)).toEqual(expected);
        expect(pages.map((page) => page.length)).toEqual(
          Array.from({ length: Math.max(1, Math.ceil(expected.length / 3)) }, (_, index) =>
            Math.min(3, expected.length - index * 3),
          ),
        );
      },
    );

    it('Given exactly one full page of jobs, when it is listed, then there is no next page', async () => {
      await createJobs(store(), 3);

      const page = await store().listJobs({ limit: 3 });

      expect(page.items).toHaveLength(3);
      expect(page.nextCursor).toBeNull();
    });

    it('Given active, paused and cancelled jobs, when listed without states, then only the live ones come back', async () => {
      const [active, paused, cancelled] = await createJobs(store(), 3);
      await store().updateJob(paused!.id, 1, { state: 'paused' }, stamp('job.pause'));
      await store().cancelJob(cancelled!.id, 1, T0 + 1, stamp('job.cancel'));

      const page = await store().listJobs({ limit: 10 });

      expect(page.items.map((job) => job.id)).toEqual([active!.id, paused!.id]);
    });

    it("Given jobs with and without a dead-man's switch, when those expecting success are asked for, then only the ones with a switch are listed", async () => {
      const watched = await withSwitch('watched', 60_000);
      await withSwitch('switch-off', null);
      await createJob(store(), 'no-alerts');
      const pausedWatched = await withSwitch('paused-watched', 3_600_000);
      await store().updateJob(pausedWatched.id, 1, { state: 'paused' }, stamp('job.pause'));

      const page = await store().listJobs({ limit: 10, expectingSuccess: true });

      expect(page.items.map((job) => job.name).sort()).toEqual(['paused-watched', 'watched']);
      expect(page.items.find((job) => job.id === watched.id)?.alerts?.expectSuccessEveryMs).toBe(60_000);
    });

    it('Given jobs with env values, headers, payloads and none, in every state, when those holding secrets are asked for a page at a time, then exactly the ones with a value are listed, each once', async () => {
      const holding = (name: string, overrides: Partial<JobDefinition>) =>
        store().createJob({ ...newJob(name), definition: definition(name, overrides) }, stamp('job.create'));
      const command = (env: Record<string, string>) => ({
        target: { kind: 'command' as const, argv: ['true'], shell: null, cwd: null, env },
      });
      const http = (headers: Record<string, string>) => ({
        target: {
          kind: 'http' as const,
          method: 'POST',
          url: 'http://127.0.0.1:9/hook',
          headers,
          expect: { kind: 'class' as const, hundreds: 2 },
          breaker: DEFAULT_BREAKER_SETTINGS,
        },
      });
      await holding('no-env', command({}));
      const env = await holding('env', command({ TOKEN: 'sealed:v2:k:x' }));
      await holding('no-headers', http({}));
      const headers = await holding('headers', http({ Authorization: 'Bearer plain' }));
      const payload = await holding('payload', { ...http({}), payload: { to: 'ops' } });
      const falsePayload = await holding('false-payload', { payload: false });
      const paused = await holding('paused', command({ EMPTY: '' }));
      await store().updateJob(paused.id, 1, { state: 'paused' }, stamp('job.pause'));
      const cancelled = await holding('cancelled', { payload: 'sealed:v2:k:y' });
      await store().cancelJob(cancelled.id, 1, T0 + 1, stamp('job.cancel'));
      const dropped = await holding('dropped', command({ TOKEN: 't' }));
      const change = { definition: definition('dropped', command({})) };
      await store().updateJob(dropped.id, dropped.version, change, stamp('job.update', T0 + 1));

      const query = {
        limit: 2,
        states: ['active', 'paused', 'cancelled'] as JobState[],
        holdingSecrets: true,
      };
      const listed: Job[] = [];
      let cursor: string | undefined;
      do {
        const page = await store().listJobs({ ...query, cursor });
        listed.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);

      const expected = [env, headers, payload, falsePayload, paused, cancelled].map((job) => job.id);
      expect(listed.map((job) => job.id)).toEqual(expected.sort());
      expect(listed.find((job) => job.id === falsePayload.id)?.payload).toBe(false);
    });

    it("Given a job with a dead-man's switch, when an update drops the switch, then it is no longer listed as expecting success", async () => {
      const job = await withSwitch('watched', 60_000);

      const change = { definition: definition('watched', { alerts: switchEvery(null) }) };
      await store().updateJob(job.id, job.version, change, stamp('job.update', T0 + 1));

      expect((await store().listJobs({ limit: 10, expectingSuccess: true })).items).toEqual([]);
    });

    it('Given a job without a switch, when an update sets one, then it is listed as expecting success with it', async () => {
      const job = await createJob(store(), 'unwatched');

      const change = { definition: definition('unwatched', { alerts: switchEvery(120_000) }) };
      await store().updateJob(job.id, job.version, change, stamp('job.update', T0 + 1));

      const page = await store().listJobs({ limit: 10, expectingSuccess: true });
      expect(page.items.map((item) => [item.id, item.alerts?.expectSuccessEveryMs])).toEqual([
        [job.id, 120_000],
      ]);
    });

    it('Given a cancelled job, when cancelled jobs are asked for, then it is the only one listed', async () => {
      const [, cancelled] = await createJobs(store(), 2);
      await store().cancelJob(cancelled!.id, 1, T0 + 1, stamp('job.cancel'));

      const page = await store().listJobs({ limit: 10, states: ['cancelled'] });

      expect(page.items.map((job) => job.id)).toEqual([cancelled!.id]);
    });

    it('Given jobs with different labels, when filtered by two labels, then only jobs carrying both are listed', async () => {
      const both = await createJob(store(), 'both', { labels: { team: 'ops', env: 'prod', extra: 'x' } });
      await createJob(store(), 'team-only', { labels: { team: 'ops' } });
      await createJob(store(), 'other-env', { labels: { team: 'ops', env: 'dev' } });

      const page = await store().listJobs({ limit: 10, labels: { team: 'ops', env: 'prod' } });

      expect(page.items.map((job) => job.id)).toEqual([both.id]);
    });

    it('Given jobs of two owners, when filtered by owner, then only that owner’s jobs are listed', async () => {
      const bobs = await createJob(store(), 'bob-job', { owner: 'bob' });
      await createJob(store(), 'alice-job');

      const page = await store().listJobs({ limit: 10, owner: 'bob' });

      expect(page.items.map((job) => [job.id, job.owner])).toEqual([[bobs.id, 'bob']]);
    });

    it('Given a label key with dots and quotes, when filtered by it, then the job is found', async () => {
      const job = await createJob(store(), 'odd', { labels: { 'app.kubernetes.io/"name"': 'web' } });

      const page = await store().listJobs({ limit: 10, labels: { 'app.kubernetes.io/"name"': 'web' } });

      expect(page.items.map((item) => item.id)).toEqual([job.id]);
    });
  });
}
