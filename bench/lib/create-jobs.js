import { pipelined } from './pipeline.js';

/**
 * BENCH_SECRETS=1: each job carries two env values and a payload, the values sealed at rest, to weigh
 * what encrypting them costs (beside the same run on a build without it, or without the knob).
 */
const SECRETS =
  process.env.BENCH_SECRETS === '1'
    ? {
        env: { TOKEN: 'bench-token-0123456789abcdef', PASSWORD: 'bench-password' },
        payload: '{"key":"bench"}',
      }
    : {};

/** `count` jobs `every 1h` running `true`, named `<prefix>-<i>`, with up to `depth` creates in flight. */
export function createJobs(client, { count, depth, prefix }) {
  return pipelined(count, depth, (i) =>
    client.call('job.add', { input: { name: `${prefix}-${i}`, every: '1h', argv: ['true'], ...SECRETS } }),
  );
}
