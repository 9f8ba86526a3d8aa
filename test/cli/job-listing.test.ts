import { afterEach, describe, expect, it } from 'vitest';
import { runsOf } from '../support/daemon-probe.js';
import { addOneShotSoon } from '../support/one-shot.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

describe('sched ls pages and states through the real CLI and daemon', () => {
  const { home, start } = useDaemons(afterEach);
  const names = (result: { json: { items: { name: string }[] } }) => result.json.items.map((job) => job.name);

  it('given more jobs than one page, when listed, then it says how many are shown of how many and how to see the rest', async () => {
    const dir = home();
    await start(dir);
    for (const name of ['a', 'b', 'c'])
      expect((await sched(dir, ['add', name, '--every', '1h', '--', 'true'])).code).toBe(0);

    const first = await sched(dir, ['ls', '--limit', '2']);
    expect(first.code).toBe(0);
    const cursor = (await sched(dir, ['ls', '--limit', '2', '--json'])).json.nextCursor;
    expect(first.stdout).toContain(
      `2 of 3 jobs shown; \`sched ls --all\` lists all, \`sched ls --cursor ${cursor}\` the next page.`,
    );
  });

  it('given more jobs than one page, when listed with --all, then every job is listed and no cursor is left', async () => {
    const dir = home();
    await start(dir);
    for (const name of ['a', 'b', 'c', 'd', 'e'])
      expect((await sched(dir, ['add', name, '--every', '1h', '--', 'true'])).code).toBe(0);

    const all = await sched(dir, ['ls', '--all', '--limit', '2', '--json']);
    expect(all.code).toBe(0);
    expect(names(all)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(all.json.nextCursor).toBeNull();
    const text = await sched(dir, ['ls', '--all', '--limit', '2']);
    expect(text.stdout).not.toContain('shown');
  });

  it('given a filter and more jobs than one page, when listed, then it says there are more and keeps the filter in the commands', async () => {
    const dir = home();
    await start(dir);
    for (const name of ['a', 'b'])
      expect(
        (await sched(dir, ['add', name, '--every', '1h', '--label', 'team=ops', '--', 'true'])).code,
      ).toBe(0);

    const first = await sched(dir, ['ls', '--limit', '1', '--label', 'team=ops']);
    expect(first.stdout).toMatch(
      /^1 job shown, and there are more; `sched ls --label team=ops --all` lists all, `sched ls --label team=ops --cursor \S+` the next page\.$/m,
    );
  });

  it('given a one-shot job that has fired, when listed and shown, then its state is done, and --status tells done from active', async () => {
    const dir = home();
    await start(dir);
    expect((await sched(dir, ['add', 'repeating', '--every', '1h', '--', 'true'])).code).toBe(0);
    expect((await addOneShotSoon(dir, 'once')).added.code).toBe(0);
    await waitFor(async () => (await runsOf(dir, 'once'))[0]?.state === 'succeeded', 30_000, 250);

    const listed = await sched(dir, ['ls', '--json']);
    expect(listed.json.items.map((job: { name: string; state: string }) => [job.name, job.state])).toEqual([
      ['repeating', 'active'],
      ['once', 'done'],
    ]);
    expect((await sched(dir, ['ls'])).stdout).toMatch(/^once\s+done\s/m);
    expect((await sched(dir, ['show', 'once', '--json'])).json.job.state).toBe('done');
    expect((await sched(dir, ['show', 'once'])).stdout).toMatch(/^State:\s+done$/m);
    expect(names(await sched(dir, ['ls', '--status', 'active', '--json']))).toEqual(['repeating']);
    expect(names(await sched(dir, ['ls', '--status', 'done', '--json']))).toEqual(['once']);
  });
});
