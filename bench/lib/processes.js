import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Everything a benchmark starts (daemons, client processes, benchmarks under run-all, temp dirs) is
 * registered here, so a crash or Ctrl-C still ends those processes, by pid, and removes the dirs. Nothing
 * else is ever signalled.
 */
const liveChildren = new Set();
const tempDirs = new Set();

export function trackChild(child) {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  return child;
}

export function makeTempDir(label) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sched-bench-${label}-`));
  tempDirs.add(dir);
  return dir;
}

/** BENCH_KEEP_HOMES=1 keeps the daemons' homes (databases) for a post-mortem and says where they are. */
const KEEP_HOMES = process.env.BENCH_KEEP_HOMES === '1';

export function removeTempDir(dir) {
  tempDirs.delete(dir);
  if (KEEP_HOMES) console.error(`  · kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. Resolves with its exit code. */
export async function stopChild(child, graceMs = 15_000) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  process.kill(child.pid, 'SIGTERM');
  const timedOut = Symbol('timed out');
  const outcome = await Promise.race([
    exited,
    sleep(graceMs, undefined, { ref: false }).then(() => timedOut),
  ]);
  if (outcome !== timedOut) return outcome;
  process.kill(child.pid, 'SIGKILL');
  return exited;
}

/**
 * On the way out after a crash or a signal, where nothing can be awaited: SIGTERM lets a daemon stop
 * itself, and lets a benchmark run by run-all stop its own daemons in turn.
 */
function cleanUpNow() {
  for (const child of liveChildren) {
    try {
      process.kill(child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  for (const dir of tempDirs) removeTempDir(dir);
}

process.once('exit', cleanUpNow);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\nbench: ${signal}, stopping what it started`);
    process.exit(130); // runs cleanUpNow
  });
}
