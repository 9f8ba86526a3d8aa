import { pipelined } from './pipeline.js';

/** `count` jobs `every 1h` running `true`, named `<prefix>-<i>`, with up to `depth` creates in flight. */
export function createJobs(client, { count, depth, prefix }) {
  return pipelined(count, depth, (i) =>
    client.call('job.add', { input: { name: `${prefix}-${i}`, every: '1h', argv: ['true'] } }),
  );
}
