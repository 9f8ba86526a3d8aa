import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeHome,
  removeHome,
  sched,
  startDaemon,
  waitFor,
  type RunningDaemon,
} from '../support/sched-harness.js';
import { streamSched, type SchedStream } from '../support/sched-stream.js';
import { askDaemon } from '../support/daemon-probe.js';

type Watcher = SchedStream;

function watch(home: string, args: string[]): Watcher {
  return streamSched(home, ['watch', ...args]);
}

/**
 * A watcher prints nothing until an event comes, so "subscribed" is seen by causing events until one
 * shows up: each probe is a job added and cancelled again.
 */
async function subscribed(home: string, watcher: Watcher): Promise<void> {
  let probe = 0;
  await waitFor(
    async () => {
      const name = `probe-${probe++}`;
      await askDaemon(home, 'job.add', { input: { name, every: '1h', argv: ['true'] } });
      await askDaemon(home, 'job.cancel', { ref: name });
      return watcher.lines.some((line) => line.includes('probe-'));
    },
    30_000,
    200,
  );
}

describe('sched watch', () => {
  let home: string;
  let daemon: RunningDaemon;
  const watchers: Watcher[] = [];

  beforeAll(async () => {
    home = makeHome();
    daemon = await startDaemon(home);
  });

  afterAll(async () => {
    for (const watcher of watchers) watcher.process.kill('SIGKILL');
    await daemon.stop();
    removeHome(home);
  });

  it('given a watcher, when a job is added and paused from another shell, then it prints a line for each', async () => {
    const watcher = watch(home, []);
    watchers.push(watcher);
    await subscribed(home, watcher);
    await sched(home, ['add', 'nightly', '--cron', '0 3 * * *', '--tz', 'Europe/Berlin', '--', 'true']);
    await sched(home, ['pause', 'nightly']);
    await waitFor(async () =>
      watcher.lines.some((line) => line.includes('job:updated') && line.includes('nightly')),
    );
    const created = watcher.lines.find((line) => line.includes('job:created') && line.includes('nightly'));
    expect(created).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ {2}job:created {10}nightly {2}at 03:00 every day \(Europe\/Berlin\)$/,
    );
    expect(watcher.lines.find((line) => line.includes('job:updated') && line.includes('nightly'))).toMatch(
      /job:updated {10}nightly {2}paused, version 2$/,
    );
  });

  it('given --json and two types, when a run finishes, then it prints the events of those types as JSON lines', async () => {
    await sched(home, ['add', 'quick', '--every', '1h', '--', 'sh', '-c', 'echo done']);
    const watcher = watch(home, ['--json', '--type', 'run:finished', '--type', 'job:cancelled']);
    watchers.push(watcher);
    await subscribed(home, watcher);
    const triggered = await sched(home, ['trigger', 'quick', '--json']);
    await waitFor(async () => watcher.lines.some((line) => line.includes(triggered.json.id)));
    const events = watcher.lines.map((line) => JSON.parse(line));
    expect(events.find((event) => event.type === 'run:finished')).toMatchObject({
      type: 'run:finished',
      at: expect.any(Number),
      data: {
        id: triggered.json.id,
        jobName: 'quick',
        state: 'succeeded',
        exitCode: 0,
        stdoutTail: 'done\n',
      },
    });
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['job:cancelled', 'run:finished']));
  });

  it('given --since the id of an earlier line, when started after events it missed, then it replays them from the store and goes on live, each once', async () => {
    const first = watch(home, ['--json']);
    watchers.push(first);
    await subscribed(home, first);
    const seen = first.lines.map((line) => JSON.parse(line) as { id?: number; node?: string });
    const lastSeen = Math.max(...seen.map((event) => event.id ?? 0));
    expect(seen.every((event) => typeof event.node === 'string')).toBe(true);
    first.process.kill('SIGKILL');
    await sched(home, ['add', 'missed-one', '--every', '1h', '--', 'true']);
    await sched(home, ['trigger', 'missed-one']);
    await waitFor(
      async () =>
        (await sched(home, ['history', 'missed-one', '--json'])).json?.items?.[0]?.state === 'succeeded',
    );

    const resumed = watch(home, ['--json', '--since', String(lastSeen)]);
    watchers.push(resumed);
    await sched(home, ['add', 'live-one', '--every', '1h', '--', 'true']);

    const events = await waitFor(async () => {
      const all = resumed.lines.map(
        (line) =>
          JSON.parse(line) as { type: string; id?: number; data: { name?: string; jobName?: string } },
      );
      return all.some((event) => event.data.name === 'live-one') ? all : null;
    });
    expect(
      events
        .filter((event) => event.data.name === 'missed-one' || event.data.jobName === 'missed-one')
        .map((event) => event.type),
    ).toEqual(expect.arrayContaining(['job:created', 'run:fired', 'run:finished']));
    const ids = events.flatMap((event) => (event.id === undefined ? [] : [event.id]));
    expect(ids.every((id) => id > lastSeen)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  });

  it('given a --since that is no event id, when started, then it is refused with exit 2 and a hint', async () => {
    const result = await sched(home, ['watch', '--since', '-3']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--since takes an event id/);
  });

  it('given --count 1, when an event comes, then it prints one line and exits 0', async () => {
    await sched(home, ['add', 'counted', '--every', '1h', '--', 'true']);
    const watcher = watch(home, ['--type', 'run:finished', '--count', '1']);
    watchers.push(watcher);
    // Each trigger finishes a run; the first one after the watcher subscribed ends it.
    await waitFor(
      async () => {
        await sched(home, ['trigger', 'counted']);
        return watcher.process.exitCode !== null;
      },
      30_000,
      300,
    );
    expect(await watcher.exited).toBe(0);
    expect(watcher.lines).toHaveLength(1);
    expect(watcher.lines[0]).toMatch(/run:finished {9}counted {2}run \S+ {2}succeeded, exit 0, took \S+$/);
  });

  it('given an unknown event type, when started, then it is refused as invalid input', async () => {
    const result = await sched(home, ['watch', '--type', 'job:exploded']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('job:exploded');
  });

  it('given no daemon, when started, then it says so and exits 7', async () => {
    const empty = makeHome();
    try {
      const result = await sched(empty, ['watch']);
      expect(result.code).toBe(7);
      expect(result.stderr).toContain('The sched daemon is not running');
    } finally {
      removeHome(empty);
    }
  });

  it('given a watcher, when the daemon stops, then it says the stream closed and exits 7', async () => {
    const ownHome = makeHome();
    const own = await startDaemon(ownHome);
    try {
      const watcher = watch(ownHome, []);
      watchers.push(watcher);
      await subscribed(ownHome, watcher);
      await own.stop();
      expect(await watcher.exited).toBe(7);
      expect(watcher.stderr()).toContain('The daemon closed the event stream.');
      expect(watcher.lines.some((line) => line.includes('daemon:stopping'))).toBe(true);
    } finally {
      await own.stop();
      removeHome(ownHome);
    }
  });
});
