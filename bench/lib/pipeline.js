import { performance } from 'node:perf_hooks';

/**
 * Sends `total` requests with at most `depth` in flight on whatever `send(i)` uses (depth 1 = one after
 * another). Returns each request's latency in ms and the wall time of the whole batch.
 */
export async function pipelined(total, depth, send) {
  const latenciesMs = new Float64Array(total);
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const index = next++;
      const sentAt = performance.now();
      await send(index);
      latenciesMs[index] = performance.now() - sentAt;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.max(1, Math.min(depth, total)) }, lane));
  return { latenciesMs, elapsedMs: performance.now() - started };
}
