import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openFileLimit } from '../../src/daemon/executor/open-file-limit.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

const daemons = useDaemons(afterEach);

describe('sched daemon run --max-children', () => {
  it('Given more children than the open-file limit holds, then the daemon refuses before it opens its store, saying how to fix it', async () => {
    const dir = daemons.home();
    const limit = openFileLimit();
    if (limit === null) throw new Error('this test needs an open-file limit in /proc/self/limits');
    const tooMany = String(limit); // 3 descriptors a child: never within the limit

    const result = await sched(dir, ['daemon', 'run', '--max-children', tooMany]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`max_children is ${tooMany}, but this daemon may open ${limit} files`);
    expect(result.stderr).toContain('Hint: Set max_children to at most');
    expect(result.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
    expect(fs.existsSync(path.join(dir, 'sched.db'))).toBe(false);
  });

  it('Given a cap of 1, when two commands are started together, then the second waits for the first to end, daemon status says so, and both succeed', async () => {
    const dir = daemons.home();
    await daemons.start(dir, ['--max-children', '1']);
    for (const name of ['first', 'second']) {
      expect((await sched(dir, ['add', name, '--every', '1h', '--', 'sleep', '4'])).code).toBe(0);
    }
    for (const name of ['first', 'second']) expect((await sched(dir, ['trigger', name])).code).toBe(0);

    // While the first runs, the second waits for its slot, and `daemon status` says so.
    await waitFor(async () => {
      const { commands } = (await sched(dir, ['daemon', 'status', '--json'])).json;
      return commands.alive === 1 && commands.waiting === 1 && commands.maxChildren === 1;
    }, 10_000);
    expect((await sched(dir, ['daemon', 'status'])).stdout).toContain(
      'Commands: 1 alive, 1 waiting for a slot (max_children 1)',
    );

    const runs = await waitFor(async () => {
      const ended = [];
      for (const name of ['first', 'second']) {
        const [run] = (await sched(dir, ['history', name, '--json'])).json.items;
        if (run?.state !== 'succeeded') return undefined;
        ended.push(run);
      }
      return ended;
    }, 30_000);
    const [earlier, later] = runs.sort((a, b) => a.startedAt - b.startedAt);
    expect(later.startedAt).toBeGreaterThanOrEqual(earlier.finishedAt);
  });
});
