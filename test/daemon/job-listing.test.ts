import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobStatus } from '../../src/core/job-status.js';
import { listJobsByStatus } from '../../src/daemon/job-listing.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { definition, newJob, stamp, T0 } from '../store/conformance/fixtures.js';

describe('listing jobs by status on a real SQLite store', () => {
  let dir: string;
  let store: SqliteStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-job-listing-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** `count` active jobs, every `doneEvery`th a one-shot job that has fired (done); their ids by status. */
  async function activeAndDone(
    count: number,
    doneEvery: number,
  ): Promise<Record<'active' | 'done', string[]>> {
    const ids = { active: [] as string[], done: [] as string[] };
    for (let index = 0; index < count; index += 1) {
      const done = index % doneEvery === 0;
      const job = newJob(`job-${index}`, done ? { nextRunAt: null } : {});
      const oneShot = done
        ? { ...job, definition: definition(job.definition.name, { schedule: { kind: 'at', at: T0 } }) }
        : job;
      await store.createJob(oneShot, stamp('job.create'));
      (done ? ids.done : ids.active).push(job.id);
    }
    return ids;
  }

  async function everyPage(status: JobStatus, limit: number): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await listJobsByStatus(store, { statuses: [status], limit, cursor });
      pages.push(page.items.map((job) => job.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && pages.length <= 100);
    return pages;
  }

  it.each([
    { status: 'active', doneEvery: 3 },
    { status: 'active', doneEvery: 2 },
    { status: 'done', doneEvery: 3 },
    { status: 'done', doneEvery: 2 },
  ] as const)(
    'Given 40 active jobs, one in $doneEvery a one-shot job that has fired, when the $status ones are listed 4 at a time, then the pages hold each of them once, in id order',
    async ({ status, doneEvery }) => {
      const ids = await activeAndDone(40, doneEvery);
      const expected = [...ids[status]].sort();

      const pages = await everyPage(status, 4);

      expect(pages.flat()).toEqual(expected);
      expect(pages.slice(0, -1).every((page) => page.length === 4)).toBe(true);
      expect(pages.length).toBe(Math.ceil(expected.length / 4));
    },
  );
});
