import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { DaemonClient } from '../../dist/client/daemon-client.js';
import { SCHED_BIN } from './paths.js';
import { makeTempDir, removeTempDir, stopChild, trackChild } from './processes.js';

const READY_TIMEOUT_MS = 60_000;
/**
 * BENCH_DAEMON_LOG=1 runs every daemon without --quiet and counts its `scheduler:error` and `tick:late`
 * lines: slower, but it says why fires went missing. By default daemons run quiet, because a JSON line per
 * event would be part of what is measured.
 */
const DAEMON_LOG = process.env.BENCH_DAEMON_LOG === '1';
/** Extra Node flags for the daemons, e.g. BENCH_DAEMON_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'. */
const DAEMON_NODE_ARGS = process.env.BENCH_DAEMON_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
// Extra `sched daemon run` flags, e.g. BENCH_DAEMON_ARGS='--durability relaxed' for the not-durable figure.
const DAEMON_ARGS = process.env.BENCH_DAEMON_ARGS?.split(' ').filter(Boolean) ?? [];

/**
 * A real daemon: `node bin/run.js daemon run` with SCHED_HOME set to its own temp dir.
 *
 * Ready means: without --quiet, it printed its `daemon:started` JSON line; with --quiet (which silences
 * that line too) it answered `daemon.status`. The daemon emits `daemon:started` in the same chain of
 * promises that opens the socket, before it can read any request, so both mean the same thing.
 */
export async function startDaemon({
  label,
  quiet = !DAEMON_LOG,
  /** Its SCHED_HOME; a temp dir of its own when absent. A home given is kept if the start fails. */
  home: givenHome,
  grace = '2s',
  /** More `sched daemon run` flags for this daemon, e.g. ['--store', url]. */
  args = [],
  /** More environment, e.g. SCHED_KEY_FILE for daemons sharing a store. */
  env = {},
  /** An argv the daemon runs under, e.g. `ip netns exec NS` (which execs it: the pid is the daemon's). */
  prefix = [],
}) {
  const home = givenHome ?? makeTempDir(label);
  const started = performance.now();
  const child = spawnDaemonProcess({ home, quiet, grace, args, env, prefix });
  const daemon = {
    pid: child.pid,
    home,
    socketPath: path.join(home, 'sched.sock'),
    databasePath: path.join(home, 'sched.db'),
    startMs: NaN,
    /** What the daemon's log said, when it has one. */
    log: { schedulerErrors: 0, firstError: null, lastError: null, lateTicks: 0 },
    connect: () => DaemonClient.connect(daemon.socketPath),
    /** Resolves once the process has exited, however it ended. */
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    /** Stops the daemon (SIGTERM, then SIGKILL) and keeps its home for reading the database. */
    stop: () => stopChild(child),
    /** Stops it and removes its home; says so if it wrote anything to stderr or logged errors. */
    dispose: async () => {
      await stopChild(child);
      removeTempDir(home);
      if (stderr.trim()) console.error(`  ! daemon ${child.pid} stderr: ${stderr.trim().slice(-1000)}`);
      if (daemon.log.schedulerErrors) {
        console.error(
          `  ! daemon ${child.pid}: ${daemon.log.schedulerErrors} scheduler:error, first: ${daemon.log.firstError}` +
            `, last: ${daemon.log.lastError}`,
        );
        if (daemon.log.firstStack) console.error(daemon.log.firstStack);
      }
    },
  };

  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  // Lines are always read, so a talkative daemon never blocks on a full pipe.
  const lines = createInterface({ input: child.stdout });
  const startedLine = new Promise((resolve) =>
    lines.on('line', (line) => {
      if (line.includes('"daemon:started"')) resolve();
      else if (line.includes('"tick:late"')) daemon.log.lateTicks += 1;
      else if (line.includes('"scheduler:error"')) {
        daemon.log.schedulerErrors += 1;
        // pino's line: the message is `msg`, the error's own in `err.message`.
        const { msg, err } = JSON.parse(line);
        daemon.log.firstError ??= msg ?? err?.message;
        if (process.env.BENCH_DEBUG_STACK === '1') daemon.log.firstStack ??= err?.stack;
        daemon.log.lastError = msg ?? err?.message;
      }
    }),
  );
  const exited = new Promise((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`daemon exited early (code ${code}, signal ${signal}): ${stderr.trim()}`)),
    ),
  );
  exited.catch(() => {}); // only observed while waiting to be ready
  const timeout = sleep(READY_TIMEOUT_MS, undefined, { ref: false }).then(() => {
    throw new Error(`daemon not ready after ${READY_TIMEOUT_MS} ms: ${stderr.trim()}`);
  });

  try {
    await Promise.race([quiet ? answersStatus(daemon.socketPath, child) : startedLine, exited, timeout]);
  } catch (error) {
    if (givenHome === undefined) await daemon.dispose();
    else await daemon.stop();
    throw error;
  }
  daemon.startMs = performance.now() - started;
  return daemon;
}

/**
 * Only the process of a `startDaemon`, with nothing waited for: for killing a daemon while it starts.
 * Its output is piped and read (so it never blocks on a full pipe) by whoever holds the child.
 */
export function spawnDaemonProcess({
  home,
  quiet = !DAEMON_LOG,
  grace = '2s',
  args = [],
  env = {},
  prefix = [],
}) {
  const [command, ...argv] = [...prefix, process.execPath];
  return trackChild(
    spawn(
      command,
      [
        ...argv,
        ...DAEMON_NODE_ARGS,
        SCHED_BIN,
        'daemon',
        'run',
        '--grace',
        grace,
        ...(quiet ? ['--quiet'] : []),
        ...args,
        ...DAEMON_ARGS,
      ],
      {
        env: { ...process.env, SCHED_HOME: home, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  );
}

async function answersStatus(socketPath, child) {
  while (child.exitCode === null) {
    if (fs.existsSync(socketPath)) {
      try {
        const client = await DaemonClient.connect(socketPath);
        try {
          await client.call('daemon.status', {});
          return;
        } finally {
          client.close();
        }
      } catch {
        // not listening yet
      }
    }
    await sleep(20);
  }
}
