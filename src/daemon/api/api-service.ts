import type { FastifyInstance } from 'fastify';
import type { ApiListenPlan } from '../../core/api-listen.js';
import type { DaemonEvents } from '../events.js';
import type { Service } from '../service.js';
import { boundAddress, buildApiServer, type ApiDeps } from './api-server.js';

/** The HTTPS API as one of the daemon's services: listening once started, closed when stopped. */
export class ApiService implements Service {
  readonly name = 'api';
  private app: FastifyInstance | null = null;

  constructor(
    private readonly plan: ApiListenPlan,
    private readonly deps: ApiDeps,
    private readonly events: DaemonEvents,
  ) {}

  async start(): Promise<void> {
    this.app = (await buildApiServer(this.plan, this.deps)).app;
    await this.app.listen({ host: this.plan.host, port: this.plan.port });
    this.events.emit('api:listening', { address: boundAddress(this.app), tls: this.plan.tls !== null });
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }
}
