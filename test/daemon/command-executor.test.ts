import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../src/core/run.js';
import { childSlots, SPAWNER_RESERVED_DESCRIPTORS, type ChildSlots } from '../../src/core/child-slots.js';
import {
  CommandExecutor,
  type CommandExecution,
  type ExecutorOptions,
} from '../../src/daemon/executor/command-executor.js';
import { isRoot, onlyRootMakesOtherUsers } from '../support/os-users.js';

const BASE_ENV = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
const executors: CommandExecutor[] = [];
let runCounter = 0;

async function startExecutor(options: ExecutorOptions = {}): Promise<CommandExecutor> {
  const executor = await CommandExecutor.start(options);
  executors.push(executor);
  return executor;
}

/** At most `maxChildren` children, their descriptors not counted. */
function cappedAt(maxChildren: number): ChildSlots {
  return { maxChildren, descriptorBudget: null };
}

/** The slots of a spawner whose open-file limit leaves `descriptors` for children. */
function roomFor(descriptors: number): ChildSlots {
  return childSlots(SPAWNER_RESERVED_DESCRIPTORS + descriptors, null);
}

function execution(fields: Partial<CommandExecution>): CommandExecution {
  return {
    runId: `run-${++runCounter}`,
    argv: null,
    shell: null,
    cwd: null,
    env: BASE_ENV,
    runAs: null,
    stdin: null,
    timeoutMs: null,
    ...fields,
  };
}

function nextFinished(executor: CommandExecutor, runId: string): Promise<RunOutcome> {
  return new Promise((resolve) => executor.on('finished', (id, outcome) => id === runId && resolve(outcome)));
}

function nextStarted(executor: CommandExecutor, runId: string): Promise<number | null> {
  return new Promise((resolve) => executor.on('started', (id, pid) => id === runId && resolve(pid)));
}

async function runToEnd(executor: CommandExecutor, fields: Partial<CommandExecution>): Promise<RunOutcome> {
  const run = execution(fields);
  const finished = nextFinished(executor, run.runId);
  executor.run(run);
  return finished;
}

/** `use` given a new empty directory (its real path), removed afterwards. */
async function inTempDirectory(prefix: string, use: (directory: string) => Promise<void>): Promise<void> {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  try {
    await use(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Every started event's pid by run, in order: a run that never got a child shows `[null]`. */
function recordStarts(executor: CommandExecutor): Map<string, (number | null)[]> {
  const starts = new Map<string, (number | null)[]>();
  executor.on('started', (runId, pid) => starts.set(runId, [...(starts.get(runId) ?? []), pid]));
  return starts;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // Where PID 1 does not reap orphans, a killed grandchild lingers as a zombie: dead all the same.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function isDeadWithin(pid: number, limitMs: number): Promise<boolean> {
  for (
    const deadline = Date.now() + limitMs;
    Date.now() < deadline;
    await new Promise((r) => setTimeout(r, 50))
  ) {
    if (!isAlive(pid)) return true;
  }
  return !isAlive(pid);
}

/** The executor's spawner process, which its tests end or signal as a crash or a terminal would. */
function spawnerOf(executor: CommandExecutor): ChildProcess {
  return (executor as unknown as { worker: ChildProcess }).worker;
}

/** The fourth field of /proc/PID/stat, after the command name in parentheses (which may hold spaces). */
function parentPidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

afterEach(async () => {
  await Promise.all(executors.splice(0).map((executor) => executor.stop()));
});

describe('CommandExecutor', () => {
  it('Given an argv command, when it runs, then it succeeds with its stdout recorded', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { argv: ['echo', 'hello'] });
    expect(outcome).toMatchObject({ state: 'succeeded', exitCode: 0, error: null, stdoutTail: 'hello\n' });
  });

  it('Given a shell string, when it runs, then /bin/sh interprets it and both streams are kept', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { shell: 'echo one && echo two >&2' });
    expect(outcome).toMatchObject({ state: 'succeeded', stdoutTail: 'one\n', stderrTail: 'two\n' });
  });

  it('Given a run, when its child starts, then started carries the pid and comes before finished', async () => {
    const executor = await startExecutor();
    const events: string[] = [];
    executor.on('started', (_id, pid) => events.push(`started:${typeof pid}`));
    await runToEnd(executor, { argv: ['true'] });
    events.push('finished');
    expect(events).toEqual(['started:number', 'finished']);
  });

  it('Given a command printing over time, when it runs, then its output arrives live in order before finished', async () => {
    const executor = await startExecutor();
    const seen: Array<{ at: number; data: string }> = [];
    let finishedAt = 0;
    executor.on('output', (_id, stream, data) => stream === 'stdout' && seen.push({ at: Date.now(), data }));
    executor.on('finished', () => (finishedAt = Date.now()));

    const outcome = await runToEnd(executor, {
      shell: 'echo one; sleep 0.6; echo two; sleep 0.6; echo three',
    });

    expect(seen.map((chunk) => chunk.data).join('')).toBe(outcome.stdoutTail);
    expect(outcome.stdoutTail).toBe('one\ntwo\nthree\n');
    expect(seen.length).toBeGreaterThanOrEqual(3);
    // The first line was seen while the command still ran, long before it ended.
    expect(finishedAt - seen[0]!.at).toBeGreaterThan(500);
  });

  it('Given a command exiting 3, when it ends, then the run failed with exit code 3', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { shell: 'exit 3' });
    expect(outcome).toMatchObject({ state: 'failed', exitCode: 3, error: 'exited with code 3' });
  });

  it('Given a command killed by a signal the executor did not send, when it ends, then the run failed naming the signal', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { shell: 'kill -KILL $$' });
    expect(outcome).toMatchObject({ state: 'failed', signal: 'SIGKILL', error: 'killed by signal SIGKILL' });
  });

  it('Given an environment, when the command runs, then it sees exactly that environment', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { argv: ['/usr/bin/env'], env: { SCHED_RUN_ID: 'r1' } });
    expect(outcome.stdoutTail).toBe('SCHED_RUN_ID=r1\n');
  });

  it('Given a cwd, when the command runs, then it runs in that directory', async () => {
    const executor = await startExecutor();
    const directory = realpathSync(mkdtempSync(join(tmpdir(), 'sched-cwd-')));
    try {
      const outcome = await runToEnd(executor, { argv: ['pwd'], cwd: directory });
      expect(outcome.stdoutTail).toBe(`${directory}\n`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('Given a payload, when cat runs, then the payload arrives on its stdin', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { argv: ['cat'], stdin: '{"greeting":"hello"}' });
    expect(outcome).toMatchObject({ state: 'succeeded', stdoutTail: '{"greeting":"hello"}' });
  });

  it('Given a large payload, when the child never reads stdin, then the run still succeeds', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { argv: ['true'], stdin: 'x'.repeat(1024 * 1024) });
    expect(outcome.state).toBe('succeeded');
  });

  it('Given a child printing about 1 MiB, when it ends, then only the last 64 KiB of stdout are kept, and all it wrote is counted', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { argv: ['seq', '1', '150000'] });
    expect(Buffer.byteLength(outcome.stdoutTail)).toBe(64 * 1024);
    expect(outcome).toMatchObject({ stdoutBytes: 938_895, stderrBytes: 0 });
    expect(outcome.stdoutTail.endsWith('\n149999\n150000\n')).toBe(true);
  });

  it('Given a timeout, when it expires, then the whole group dies including a background grandchild', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { shell: 'sleep 100 & echo $!; sleep 100', timeoutMs: 1_500 });
    expect(outcome).toMatchObject({ state: 'timed_out', error: 'timed out after 1.5s' });
    const grandchildPid = Number(outcome.stdoutTail.trim());
    expect(grandchildPid).toBeGreaterThan(1);
    expect(await isDeadWithin(grandchildPid, 5_000)).toBe(true);
  });

  it('Given a command ignoring SIGTERM, when it times out, then SIGKILL after the grace period ends it', async () => {
    const executor = await startExecutor({ killGraceMs: 300 });
    const outcome = await runToEnd(executor, { shell: "trap '' TERM; sleep 100", timeoutMs: 300 });
    expect(outcome).toMatchObject({ state: 'timed_out', signal: 'SIGKILL' });
  });

  it('Given a running command, when it is killed, then the run is cancelled with the reason', async () => {
    const executor = await startExecutor();
    const run = execution({ argv: ['sleep', '100'] });
    const started = nextStarted(executor, run.runId);
    const finished = nextFinished(executor, run.runId);
    executor.run(run);
    await started;
    expect(executor.kill(run.runId, 'cancelled by alice')).toBe(true);
    expect(await finished).toMatchObject({
      state: 'cancelled',
      error: 'cancelled by alice',
      signal: 'SIGTERM',
    });
  });

  it('Given no such run, when it is killed, then kill reports false', async () => {
    const executor = await startExecutor();
    expect(executor.kill('run-that-never-was', 'why')).toBe(false);
  });

  it('Given a command that does not exist, when it runs, then the run fails with ENOENT instead of hanging', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { argv: ['nosuchcmd-sched-test'] });
    expect(outcome).toMatchObject({
      state: 'failed',
      exitCode: null,
      error: expect.stringMatching(/^nosuchcmd-sched-test: not found on PATH \(.*\) \(ENOENT\)$/),
    });
  });

  it('Given a relative program missing from the cwd, when it runs, then the error names the directory it looked in', async () => {
    const executor = await startExecutor();
    await inTempDirectory('sched-cwd-', async (directory) => {
      const outcome = await runToEnd(executor, { argv: ['./backup.sh'], cwd: directory });
      expect(outcome).toMatchObject({
        state: 'failed',
        error: `./backup.sh: not found in ${directory} (cwd) (ENOENT)`,
      });
    });
  });

  it('Given a missing cwd, when the command runs, then the run fails naming the directory', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { argv: ['true'], cwd: '/nonexistent/sched-test' });
    expect(outcome).toMatchObject({
      state: 'failed',
      error: 'working directory not found: /nonexistent/sched-test (ENOENT)',
    });
  });

  it('Given a grandchild holding stdout open, when the command exits, then the run finishes anyway', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { shell: 'sleep 30 & echo $!' });
    process.kill(Number(outcome.stdoutTail.trim()), 'SIGKILL');
    expect(outcome.state).toBe('succeeded');
  });

  it('Given running commands, when the executor stops, then they are cancelled and stop resolves', async () => {
    const executor = await startExecutor();
    const runs = [execution({ argv: ['sleep', '100'] }), execution({ shell: 'sleep 100 & sleep 100' })];
    const started = runs.map((run) => nextStarted(executor, run.runId));
    const finished = runs.map((run) => nextFinished(executor, run.runId));
    runs.forEach((run) => executor.run(run));
    await Promise.all(started);
    await executor.stop({ killReason: 'daemon shutting down' });
    expect((await Promise.all(finished)).map((outcome) => [outcome.state, outcome.error])).toEqual([
      ['cancelled', 'daemon shutting down'],
      ['cancelled', 'daemon shutting down'],
    ]);
    expect(executor.runningCount()).toBe(0);
  });

  it('Given a burst of 200 runs, when they all end, then every one of them finished successfully', async () => {
    const executor = await startExecutor();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () => runToEnd(executor, { argv: ['true'] })),
    );
    expect(outcomes.filter((outcome) => outcome.state === 'succeeded')).toHaveLength(200);
    expect(executor.runningIds()).toEqual([]);
  });

  it('Given a running command, when the worker dies, then the run is reported lost and a new run still works', async () => {
    const executor = await startExecutor();
    const run = execution({ argv: ['sleep', '100'] });
    const started = nextStarted(executor, run.runId);
    const finished = nextFinished(executor, run.runId);
    executor.run(run);
    const pid = await started;
    // Simulates a crash: the spawner process ends without the executor having asked it to.
    spawnerOf(executor).kill('SIGKILL');
    expect(await finished).toMatchObject({
      state: 'lost',
      error: expect.stringMatching(/^executor worker crashed: /),
    });
    expect(await isDeadWithin(pid ?? 0, 5_000)).toBe(true);
    expect((await runToEnd(executor, { argv: ['true'] })).state).toBe('succeeded');
  });
  it('Given a command, when it starts, then its parent is the spawner process, not the daemon, whose memory a fork would copy', async () => {
    const executor = await startExecutor();
    const run = execution({ argv: ['sleep', '100'] });
    const started = nextStarted(executor, run.runId);
    executor.run(run);
    const pid = (await started) ?? 0;

    const spawner = spawnerOf(executor).pid;
    expect(spawner).not.toBe(process.pid);
    expect(parentPidOf(pid)).toBe(spawner);
    executor.kill(run.runId, 'test over');
  });

  it("Given the spawner, when a terminal's or a service manager's signal reaches it, then it stays, and it ends when the executor stops", async () => {
    const executor = await startExecutor();
    const spawner = spawnerOf(executor);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) spawner.kill(signal);

    expect((await runToEnd(executor, { argv: ['true'] })).state).toBe('succeeded');
    await executor.stop();
    expect(await isDeadWithin(spawner.pid ?? 0, 5_000)).toBe(true);
  });

  it('Given a burst of 1,000 runs, when they all end, then every one of them finished successfully', async () => {
    const executor = await startExecutor();
    const outcomes = await Promise.all(
      Array.from({ length: 1_000 }, () => runToEnd(executor, { argv: ['true'] })),
    );
    expect(outcomes.filter((outcome) => outcome.state === 'succeeded')).toHaveLength(1_000);
    expect(executor.runningCount()).toBe(0);
  }, 60_000);

  it('Given a cap of 5 children, when 20 runs arrive at once, then never more than 5 are alive and all finish', async () => {
    const executor = await startExecutor({ slots: cappedAt(5) });
    let alive = 0;
    let mostAlive = 0;
    executor.on('started', (_id, pid) => {
      if (pid !== null) mostAlive = Math.max(mostAlive, ++alive);
    });
    executor.on('finished', () => alive--);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => runToEnd(executor, { argv: ['sleep', '0.2'] })),
    );
    expect(outcomes.map((outcome) => outcome.state)).toEqual(Array(20).fill('succeeded'));
    expect(mostAlive).toBe(5);
  }, 30_000);

  /** The most children alive at once while `runs` go through `executor`, all of which must succeed. */
  async function mostAliveThrough(
    executor: CommandExecutor,
    runs: Partial<CommandExecution>[],
  ): Promise<number> {
    let alive = 0;
    let mostAlive = 0;
    executor.on('started', (_id, pid) => {
      if (pid !== null) mostAlive = Math.max(mostAlive, ++alive);
    });
    executor.on('finished', () => alive--);
    const outcomes = await Promise.all(runs.map((fields) => runToEnd(executor, fields)));
    expect(outcomes.map((outcome) => outcome.state)).toEqual(Array(runs.length).fill('succeeded'));
    return mostAlive;
  }

  it('Given an open-file limit with room for 12 descriptors, when no cap is set, then 4 children of 3 each are alive at most', async () => {
    const executor = await startExecutor({ slots: roomFor(12) });
    const runs = Array.from({ length: 10 }, () => ({ argv: ['sleep', '1'] }));
    expect(await mostAliveThrough(executor, runs)).toBe(4);
  }, 30_000);

  it('Given room for 12 descriptors, when the runs have a payload (a stdin pipe, 4 each), then only 3 are alive at once and the rest wait rather than fail', async () => {
    const executor = await startExecutor({ slots: roomFor(12) });
    const runs = Array.from({ length: 10 }, () => ({ shell: 'cat > /dev/null; sleep 1', stdin: 'payload' }));
    expect(await mostAliveThrough(executor, runs)).toBe(3);
  }, 30_000);

  it('Given room for 6 descriptors, when runs fail before they start and a waiting one is cancelled, then every descriptor comes back and later runs all start', async () => {
    const executor = await startExecutor({ slots: roomFor(6) });
    const blocker = execution({ shell: 'cat > /dev/null; sleep 100', stdin: 'payload' });
    const blockerStarted = nextStarted(executor, blocker.runId);
    executor.run(blocker);
    await blockerStarted;
    const cancelled = execution({ shell: 'cat > /dev/null', stdin: 'payload' });
    const cancelledEnd = nextFinished(executor, cancelled.runId);
    executor.run(cancelled);
    expect(executor.kill(cancelled.runId, 'not wanted')).toBe(true);
    expect((await cancelledEnd).state).toBe('cancelled');
    const blockerEnd = nextFinished(executor, blocker.runId);
    executor.kill(blocker.runId, 'done');
    await blockerEnd;
    const failures = await Promise.all(
      Array.from({ length: 5 }, () => runToEnd(executor, { argv: ['true'], cwd: '/nonexistent/sched-test' })),
    );
    expect(failures.map((outcome) => outcome.state)).toEqual(Array(5).fill('failed'));

    // Leaked descriptors would hold these for good: 6 are enough for two at once only if all came back.
    expect(
      await mostAliveThrough(
        executor,
        Array.from({ length: 6 }, () => ({ argv: ['sleep', '1'] })),
      ),
    ).toBe(2);
  }, 30_000);

  it('Given a cap of 1 child, when runs queue up, then they start in the order they were handed over', async () => {
    const executor = await startExecutor({ slots: cappedAt(1) });
    const startOrder: string[] = [];
    executor.on('started', (runId) => startOrder.push(runId));
    const runs = Array.from({ length: 6 }, () => execution({ argv: ['true'] }));
    const finished = runs.map((run) => nextFinished(executor, run.runId));
    runs.forEach((run) => executor.run(run));
    await Promise.all(finished);
    expect(startOrder).toEqual(runs.map((run) => run.runId));
  });

  it('Given a run waiting for a slot, when it is killed, then it is cancelled without a pid and never starts', async () => {
    const executor = await startExecutor({ slots: cappedAt(1) });
    const starts = recordStarts(executor);
    const blocker = execution({ argv: ['sleep', '100'] });
    const blockerStarted = nextStarted(executor, blocker.runId);
    executor.run(blocker);
    await blockerStarted;
    const queued = execution({ argv: ['true'] });
    const finished = nextFinished(executor, queued.runId);
    executor.run(queued);
    expect(executor.queuedCount()).toBe(1);

    expect(executor.kill(queued.runId, 'cancelled by alice')).toBe(true);

    expect(await finished).toMatchObject({
      state: 'cancelled',
      error: 'cancelled by alice',
      exitCode: null,
      signal: null,
    });
    expect(executor.queuedCount()).toBe(0);
    // The slot frees up and a later run gets it; the cancelled one must not have been spawned meanwhile.
    executor.kill(blocker.runId, 'done');
    expect((await runToEnd(executor, { argv: ['true'] })).state).toBe('succeeded');
    expect(starts.get(queued.runId)).toEqual([null]);
  });

  it('Given runs waiting for a slot, when the executor stops, then each of them is reported cancelled', async () => {
    const executor = await startExecutor({ slots: cappedAt(1) });
    const starts = recordStarts(executor);
    const blocker = execution({ argv: ['sleep', '100'] });
    const blockerStarted = nextStarted(executor, blocker.runId);
    executor.run(blocker);
    await blockerStarted;
    const queued = Array.from({ length: 5 }, () => execution({ argv: ['sleep', '100'] }));
    const finished = [blocker, ...queued].map((run) => nextFinished(executor, run.runId));
    queued.forEach((run) => executor.run(run));

    await executor.stop({ killReason: 'daemon shutting down' });

    expect((await Promise.all(finished)).map((outcome) => [outcome.state, outcome.error])).toEqual(
      Array(6).fill(['cancelled', 'daemon shutting down']),
    );
    expect(queued.map((run) => starts.get(run.runId))).toEqual(Array(5).fill([null]));
    expect(executor.runningCount()).toBe(0);
  });
});

describe('CommandExecutor, starting a run as another user through sched-run-as', () => {
  it('Given runAs nobody, when the command runs, then it runs with nobody’s uid and identity', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, {
      shell: 'id -u; echo "$USER $LOGNAME"',
      runAs: 'nobody',
    });
    const uid = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('nobody:'))!
      .split(':')[2];
    expect(outcome).toMatchObject({ state: 'succeeded', stdoutTail: `${uid}\nnobody nobody\n` });
  });

  it('Given a program that does not exist, when it runs as another user, then the run fails as not found', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, {
      argv: ['/nonexistent/sched-test-program'],
      runAs: 'nobody',
    });
    expect(outcome).toMatchObject({
      state: 'failed',
      exitCode: null,
      stdoutTail: '',
      stderrTail: '',
      error: expect.stringMatching(/^\/nonexistent\/sched-test-program: not found .*\(ENOENT\)$/),
      cause: { kind: 'not-found' },
    });
  });

  it('Given a working directory the user may not enter, when the run starts as them, then it fails saying so', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const executor = await startExecutor();
    await inTempDirectory('sched-private-', async (directory) => {
      chmodSync(directory, 0o700);
      const outcome = await runToEnd(executor, { argv: ['pwd'], cwd: directory, runAs: 'nobody' });
      expect(outcome).toMatchObject({
        state: 'failed',
        stdoutTail: '',
        error: `working directory ${directory} cannot be entered by nobody (EACCES)`,
      });
    });
  });

  it('Given a user this host does not know, when the run starts, then it fails naming the user and nothing runs', async () => {
    const executor = await startExecutor();
    const outcome = await runToEnd(executor, { argv: ['true'], runAs: 'sched-test-no-such-user' });
    expect(outcome).toMatchObject({
      state: 'failed',
      exitCode: null,
      error:
        'cannot start it as sched-test-no-such-user: no user of that name on this host (its owner is gone?)',
    });
  });

  it('Given a run as another user, when it times out, then its whole group is killed', async () => {
    if (!isRoot) return onlyRootMakesOtherUsers();
    const executor = await startExecutor({ killGraceMs: 500 });
    const outcome = await runToEnd(executor, {
      shell: 'sleep 100 & sleep 100',
      runAs: 'nobody',
      timeoutMs: 500,
    });
    expect(outcome.state).toBe('timed_out');
  });
});
