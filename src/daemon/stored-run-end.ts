import type { Run } from '../core/run.js';
import type { Store } from '../store/store.js';
import { sleep, type Clock } from './clock.js';

const POLL_MS = 200;

/**
 * Resolves with the run once the store has its end, whichever node ran it, or with null after
 * `timeoutMs`: for a run on another node, whose end this daemon hears of only through the store.
 */
export async function storedRunEnd(
  store: Store,
  clock: Clock,
  runId: string,
  timeoutMs: number,
): Promise<Run | null> {
  const deadline = clock.monotonic() + timeoutMs;
  for (;;) {
    const run = await store.findRun(runId);
    if (run !== null && run.state !== 'running' && run.state !== 'scheduled') return run;
    if (clock.monotonic() >= deadline) return null;
    await sleep(clock, POLL_MS);
  }
}
