import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SchedError } from '../../core/errors.js';
import { isLoopbackHost } from '../../core/loopback-host.js';
import { bearerMatches } from './bearer-token.js';
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

/**
 * The listen address, refused when it reaches beyond this host and no token guards it: what the
 * listener tells (jobs, nodes, errors) is not for whoever can reach the port. Checked again by
 * serveObservability, and by the daemon before anything starts.
 */
export function checkExposure(address: string, token: string | null): { host: string; port: number } {
  const listen = parseListenAddress(address);
  if (token === null && !isLoopbackHost(listen.host))
    throw new SchedError(
      'VALIDATION_FAILED',
      `The metrics address ${address} can be reached from beyond this host, and no metrics_token_file is set: /metrics and /health would be open to anyone.`,
      {
        hint: 'Set metrics_token_file to a file (mode 0600) holding a random token (openssl rand -hex 32), and have Prometheus send it as a bearer token; or bind 127.0.0.1.',
        details: { metricsAddress: address },
      },
    );
  return listen;
}

/**
 * `/metrics` (Prometheus text), `/health`, `/ready`, `/live` and `/startup` (JSON; 503 when DOWN). With a
 * `token`, every path asks for `Authorization: Bearer <token>` (401 otherwise), probes included: they
 * tell the version and the store's errors too, and Kubernetes probes can send a header.
 */
export async function serveObservability(
  address: string,
  routes: ObservabilityRoutes,
  token: string | null = null,
): Promise<ObservabilityServer> {
  const { host, port } = checkExposure(address, token);
  const server = http.createServer((request, response) => {
    if (token !== null && !bearerMatches(request.headers.authorization, token)) {
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
      response.end('unauthorized: send Authorization: Bearer <the token in metrics_token_file>\n');
      return;
    }
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
