import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildJournal } from '../../src/daemon/orphans/child-journal.js';
import { stopOrphanedRuns } from '../../src/daemon/orphans/orphan-sweep.js';
import { childEnv } from './child-env.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const schedBin = path.join(repoRoot, 'bin', 'run.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is JSON; tests read whatever shape the command prints. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** Runs the real `sched` binary as a user would. */
export function sched(
  home: string,
  args: string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [schedBin, ...args],
      {
        env: childEnv({ SCHED_HOME: home, NO_COLOR: '1', ...options.env }),
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        let json: unknown = undefined;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code, stdout, stderr, json });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

export function makeHome(prefix = 'sched-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeHome(home: string): void {
  fs.rmSync(home, { recursive: true, force: true });
}

export interface RunningDaemon {
  home: string;
  process: ChildProcess;
  pid: number;
  output: () => string;
  /** Waits for the process to exit and returns its exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts a real `sched daemon run` in `home` and resolves once it accepts requests. */
export function startDaemon(
  home: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<RunningDaemon> {
  return startDaemonProcess(home, [schedBin, 'daemon', 'run', ...extraArgs], env);
}

/**
 * Starts a daemon process from `argv` (node's arguments: `sched daemon run`, or a test composition of the
 * daemon such as crash-before-reply-daemon.mjs) and resolves once it says it has started.
 */
export async function startDaemonProcess(
  home: string,
  argv: string[],
  env: Record<string, string> = {},
): Promise<RunningDaemon> {
  const daemon = launchDaemonProcess(home, argv, env);
  await untilStarted(daemon);
  return daemon;
}

/**
 * Spawns a daemon process from `argv` and returns at once, started or not (see untilStarted); `prefix` runs
 * it through another program that execs node in its place (`ip netns exec NS`), so the pid stays its own.
 */
export function launchDaemonProcess(
  home: string,
  argv: string[],
  env: Record<string, string> = {},
  prefix: string[] = [],
): RunningDaemon {
  const [program, ...args] = [...prefix, process.execPath, ...argv] as [string, ...string[]];
  const child = spawn(program, args, {
    env: childEnv({ SCHED_HOME: home, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    home,
    process: child,
    pid: child.pid!,
    output: () => output,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Resolves once `daemon` says it has started; kills it if it has not within `timeoutMs`. */
export async function untilStarted(daemon: RunningDaemon, timeoutMs = 30_000): Promise<void> {
  const { process: child } = daemon;
  const deadline = Date.now() + timeoutMs;
  while (!daemon.output().includes('"daemon:started"')) {
    if (child.exitCode !== null)
      throw new Error(`daemon exited early (${child.exitCode}): ${daemon.output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`daemon did not start within ${timeoutMs / 1000}s: ${daemon.output()}`);
    }
    await sleep(25);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/** True while `pid` runs. A zombie counts as dead: some containers' init never reaps orphans. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Temp homes and daemons for one test file, all cleaned up after each test (daemons by SIGKILL, by the
 * pid we started, and then what their jobs left running).
 */
export function useDaemons(register: (cleanup: () => Promise<void>) => void) {
  const daemons: RunningDaemon[] = [];
  const homes: string[] = [];
  register(async () => {
    for (const daemon of daemons.splice(0)) {
      await daemon.stop('SIGKILL');
      // A home its test removed already took the journal with it; sweeping would only make it again.
      if (!fs.existsSync(daemon.home)) continue;
      // A SIGKILLed daemon cannot end its jobs: stop what it left running, as the next daemon would.
      await stopOrphanedRuns({
        journal: new ChildJournal(path.join(daemon.home, 'children')),
        leftoverRunIds: [],
        graceMs: 500,
      });
    }
    for (const dir of homes.splice(0)) removeHome(dir);
  });
  return {
    home(): string {
      const dir = makeHome();
      homes.push(dir);
      return dir;
    },
    async start(dir: string, args: string[] = [], env: Record<string, string> = {}): Promise<RunningDaemon> {
      const daemon = await startDaemon(dir, args, env);
      daemons.push(daemon);
      return daemon;
    },
    /** Spawns `sched daemon run` in `dir` without waiting for it to start (see untilStarted). */
    launch(dir: string, args: string[] = [], prefix: string[] = []): RunningDaemon {
      const daemon = launchDaemonProcess(dir, [schedBin, 'daemon', 'run', ...args], {}, prefix);
      daemons.push(daemon);
      return daemon;
    },
    /** Starts a test composition of the daemon (a script in test/support) with `args`. */
    async startComposed(dir: string, script: string, args: string[] = []): Promise<RunningDaemon> {
      const daemon = await startDaemonProcess(dir, [path.join(repoRoot, 'test/support', script), ...args]);
      daemons.push(daemon);
      return daemon;
    },
  };
}
