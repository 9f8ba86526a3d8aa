import { pipelined } from './pipeline.js';

/** `count` distinct instants spread evenly over `spreadMs` from `firstAt` (epoch ms). */
export function probeInstants(firstAt, count, spreadMs) {
  return Array.from({ length: count }, (_, i) => firstAt + Math.round((i * spreadMs) / count));
}

/**
 * One `at` job per instant, running `true` (or calling `target`, e.g. `{ http: url }`), created over the
 * socket with up to `depth` requests in flight. Returns the instants each job must fire at (as the daemon
 * stored them).
 */
export async function addProbeJobs(client, instants, { prefix, depth = 64, target = { argv: ['true'] } }) {
  const expected = new Array(instants.length);
  const { elapsedMs } = await pipelined(instants.length, depth, async (i) => {
    const job = await client.call('job.add', {
      input: { name: `${prefix}-${i}`, at: new Date(instants[i]).toISOString(), ...target },
    });
    if (job.nextRunAt !== instants[i]) {
      throw new Error(`probe ${job.name} is due at ${job.nextRunAt}, asked for ${instants[i]}`);
    }
    expected[i] = { jobId: job.id, scheduledFor: job.nextRunAt };
  });
  return { expected, createMs: elapsedMs };
}
