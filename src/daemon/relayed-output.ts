import type { StoredEvent } from '../store/store.js';
import { OutputTail } from './executor/output-tail.js';
import type { LiveTail } from './live-output.js';

/**
 * What a run running on another node has printed so far, from the output batches it stored: tails as
 * bounded as a local run's, and `outputSeq` the number of the last batch they hold, so a follower that
 * subscribed first prints only the batches after it.
 */
export function tailFromBatches(batches: StoredEvent[]): LiveTail | null {
  if (batches.length === 0) return null;
  const tails = { stdout: new OutputTail(), stderr: new OutputTail() };
  let outputSeq = 0;
  for (const batch of batches) {
    const data = batch.data as { stream?: unknown; data?: unknown; seq?: unknown };
    if ((data.stream !== 'stdout' && data.stream !== 'stderr') || typeof data.data !== 'string') continue;
    tails[data.stream].push(Buffer.from(data.data, 'utf8'));
    if (typeof data.seq === 'number') outputSeq = Math.max(outputSeq, data.seq);
  }
  return {
    stdoutTail: tails.stdout.toString(),
    stderrTail: tails.stderr.toString(),
    stdoutBytes: tails.stdout.totalBytes,
    stderrBytes: tails.stderr.totalBytes,
    outputSeq,
  };
}
