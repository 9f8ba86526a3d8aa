import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, sched, useDaemons, waitFor } from '../support/sched-harness.js';

/** The daemon's spawner: its child process running spawn-worker.js. */
function spawnerOf(daemonPid: number): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== daemonPid) continue;
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('spawn-worker.js')) return Number(entry);
    } catch {
      // Gone while we looked.
    }
  }
  return undefined;
}

describe("the daemon's spawner process", () => {
  const { home, start } = useDaemons(afterEach);

  it('runs the jobs, and ends when its daemon is killed with SIGKILL, leaving no process behind', async () => {
    const dir = home();
    const daemon = await start(dir);
    const spawner = spawnerOf(daemon.pid);
    expect(spawner).toBeDefined();
    await sched(dir, ['add', 'tick', '--every', '1s', '--', 'true']);
    await waitFor(async () => (await sched(dir, ['history', 'tick'])).stdout.includes('succeeded'));

    daemon.process.kill('SIGKILL');
    await daemon.exited;

    expect(await waitFor(async () => !isAlive(spawner!), 10_000)).toBe(true);
  });

  it('ends with its daemon when the daemon stops on SIGTERM', async () => {
    const dir = home();
    const daemon = await start(dir);
    const spawner = spawnerOf(daemon.pid);
    expect(spawner).toBeDefined();

    await daemon.stop('SIGTERM');

    expect(await waitFor(async () => !isAlive(spawner!), 10_000)).toBe(true);
  });
});
