import { pipelined } from './pipeline.js';

/** Two env values and a payload: what the daemon seals at rest (AES-256-GCM, one nonce per value). */
export const SECRET_VALUES = {
  env: { TOKEN: 'bench-token-0123456789abcdef', PASSWORD: 'bench-password' },
  payload: '{"key":"bench"}',
};

/**
 * BENCH_SECRETS=1: each job carries SECRET_VALUES, to weigh what encrypting them costs (beside the same
 * run without the knob). security-cost.js asks for them per scenario instead.
 */
const SECRETS_BY_DEFAULT = process.env.BENCH_SECRETS === '1';

/** `count` jobs `every 1h` running `true`, named `<prefix>-<i>`, with up to `depth` creates in flight. */
export function createJobs(client, { count, depth, prefix, secrets = SECRETS_BY_DEFAULT }) {
  const extra = secrets ? SECRET_VALUES : {};
  return pipelined(count, depth, (i) =>
    client.call('job.add', { input: { name: `${prefix}-${i}`, every: '1h', argv: ['true'], ...extra } }),
  );
}
