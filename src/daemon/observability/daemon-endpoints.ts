import fs from 'node:fs';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { checkHealth, type HealthCheck } from './health.js';
import { serveObservability, type ObservabilityServer } from './http-endpoint.js';
import type { DaemonMetrics } from './metrics.js';

export interface DaemonEndpoints {
  address: string;
  metrics: DaemonMetrics;
  store: Store;
  socketPath: string;
  clock: Clock;
  startedAt: number;
  version: string;
  /** The bearer token every request must carry (`metrics_token_file`); null: none, loopback only. */
  token: string | null;
  /** `degraded: store unreachable for 45s, …` while the store cannot be reached, else null. */
  degraded?: () => string | null;
}

/**
 * The daemon's `/metrics`, `/health`, `/ready` and `/live`: health is the event loop, the store and the
 * socket; ready leaves out the event loop (a busy daemon is still ready); live is the event loop alone.
 */
export function serveDaemonEndpoints(endpoints: DaemonEndpoints): Promise<ObservabilityServer> {
  const { metrics, store, socketPath, clock, startedAt, version } = endpoints;
  const context = { clock, startedAt, version, timeoutMs: 2_000 };
  const loop: HealthCheck = {
    name: 'event_loop',
    check: () => new Promise((resolve) => setImmediate(resolve)),
  };
  const database: HealthCheck = { name: 'database', check: () => store.ping() };
  const socket: HealthCheck = {
    name: 'socket',
    check: async () => {
      if (!fs.existsSync(socketPath)) throw new Error(`socket ${socketPath} is missing`);
    },
  };
  return serveObservability(
    endpoints.address,
    {
      metrics: async () => ({ contentType: metrics.contentType, body: await metrics.metricsText() }),
      health: async () => {
        const report = await checkHealth([loop, database, socket], context);
        const degraded = endpoints.degraded?.() ?? null;
        return degraded === null ? report : { ...report, degraded };
      },
      ready: () => checkHealth([database, socket], context),
      live: () => checkHealth([loop], context),
    },
    endpoints.token,
  );
}
