import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SchedError } from '../../core/errors.js';
import type { HealthReport } from './health.js';

export interface ObservabilityRoutes {
  metrics: () => Promise<{ contentType: string; body: string }>;
  /** Everything the daemon depends on (store, executors, scheduler). */
  health: () => Promise<HealthReport>;
  /** The process answers and its loop turns: liveness needs nothing else. */
  live: () => Promise<HealthReport>;
  /** Started and able to take work. */
  ready: () => Promise<HealthReport>;
}

export interface ObservabilityServer {
  address: string;
  close(): Promise<void>;
}

/** Parses `host:port`, `:port` or `port`; loopback is the default host, so nothing is exposed by accident. */
export function parseListenAddress(text: string): { host: string; port: number } {
  const match = /^(?:\[?([^\]]*?)\]?:)?(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new SchedError('VALIDATION_FAILED', `Invalid metrics address "${text}".`, {
      hint: 'Give host:port, such as 127.0.0.1:9464 (or :9464 for loopback).',
    });
  }
  return { host: match[1] || '127.0.0.1', port };
}

/** `/metrics` (Prometheus text), `/health`, `/ready`, `/live` and `/startup` (JSON; 503 when DOWN). */
export async function serveObservability(
  address: string,
  routes: ObservabilityRoutes,
): Promise<ObservabilityServer> {
  const { host, port } = parseListenAddress(address);
  const server = http.createServer((request, response) => {
    void answer(request.url ?? '/', routes)
      .then(({ status, contentType, body }) => {
        response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(body);
      })
      .catch((error: Error) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`internal error: ${error.message}\n`);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return {
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(
  url: string,
  routes: ObservabilityRoutes,
): Promise<{ status: number; contentType: string; body: string }> {
  const path = url.split('?')[0];
  if (path === '/metrics') {
    const { contentType, body } = await routes.metrics();
    return { status: 200, contentType, body };
  }
  const report =
    path === '/health'
      ? await routes.health()
      : path === '/live'
        ? await routes.live()
        : path === '/ready' || path === '/startup'
          ? await routes.ready()
          : null;
  if (!report)
    return {
      status: 404,
      contentType: 'text/plain',
      body: 'not found: try /metrics, /health, /ready, /live or /startup\n',
    };
  return {
    status: report.status === 'UP' ? 200 : 503,
    contentType: 'application/json',
    body: `${JSON.stringify(report)}\n`,
  };
}
