import path from 'node:path';
import { DaemonClient } from '../../src/client/daemon-client.js';
import type { Method, Params, Results } from '../../src/ipc/protocol.js';
import type { Run, RunState, RunSummary } from '../../src/core/run.js';
import { waitFor } from './sched-harness.js';

/**
 * One request to the daemon of `home`, straight over its socket. For tests that poll for a condition: a
 * `sched` subprocess per poll costs a Node start-up (about 0.4 s of CPU), which on a loaded machine is
 * most of what such a test spends. What the CLI prints is still tested with `sched` where it is the subject.
 */
export async function askDaemon<M extends Method>(
  home: string,
  method: M,
  params: Params<M>,
): Promise<Results[M]> {
  const client = await DaemonClient.connect(path.join(home, 'sched.sock'));
  try {
    return await client.call(method, params);
  } finally {
    client.close();
  }
}

/** Waits until the run `id` (as `sched logs ID --json` shows it) satisfies `until`, and returns it. */
export function runWhere(
  home: string,
  id: string,
  until: (run: Run) => boolean,
  timeoutMs?: number,
): Promise<Run> {
  return waitFor(async () => {
    const run = await askDaemon(home, 'run.get', { id, orJob: false }).catch(() => null);
    return run && until(run) ? run : null;
  }, timeoutMs);
}

/** The job's runs, newest first, as `sched history JOB --json` lists them (the first page). */
export async function runsOf(home: string, jobRef: string, states?: RunState[]): Promise<RunSummary[]> {
  return (await askDaemon(home, 'run.list', { jobRef, states })).items;
}
