import type { FastifyInstance } from 'fastify';
import type { ApiListenPlan } from '../../core/api-listen.js';
import type { DaemonEvents } from '../events.js';
import { service, type Service } from '../service.js';
import type { ApiTls } from './api-tls.js';
import { boundAddress, buildApiServer, type ApiDeps } from './api-server.js';

/** The HTTPS API as one of the daemon's services: listening once started, closed when stopped. */
export function apiService(
  plan: ApiListenPlan,
  tls: ApiTls | null,
  deps: ApiDeps,
  events: DaemonEvents,
): Service {
  let app: FastifyInstance | null = null;
  return service('api', {
    start: async () => {
      app = (await buildApiServer(tls, deps)).app;
      await app.listen({ host: plan.host, port: plan.port });
      events.emit('api:listening', { address: boundAddress(app), tls: plan.tls !== null });
    },
    stop: () => app?.close(),
  });
}
