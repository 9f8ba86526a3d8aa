import type { Service } from './service.js';

/**
 * The daemon's parts in the order they started. Stopping goes in reverse: the socket closes before the
 * runs it could start are drained, the runs are recorded before the node leaves the cluster, and the
 * store closes last. A part that fails to stop is reported and the rest still stop.
 */
export class ServiceStack {
  private readonly started: Service[] = [];
  private readonly stopRequested = new AbortController();

  constructor(private readonly onStopFailed: (service: Service, error: Error) => void) {}

  /** Aborted when the stop begins: a start waiting on something outside (a majority) gives up then. */
  get stopSignal(): AbortSignal {
    return this.stopRequested.signal;
  }

  private get stopping(): boolean {
    return this.stopRequested.signal.aborted;
  }

  /** Starts the service and keeps it for the stop; resolves with it, so its parts can be wired on. */
  async start<Part extends Service>(service: Part): Promise<Part> {
    if (this.stopping) throw new Error(`the daemon is stopping: the ${service.name} is not started`);
    await service.start();
    if (this.stopping) {
      // The stop began while this one was starting: it is not in the stack the stop goes through.
      await service.stop().catch((error: Error) => this.onStopFailed(service, error));
      throw new Error(`the daemon is stopping: the ${service.name} was stopped as soon as it started`);
    }
    this.started.push(service);
    return service;
  }

  /** Stops every started service, last started first. */
  async stop(): Promise<void> {
    this.stopRequested.abort();
    for (let service = this.started.pop(); service; service = this.started.pop()) {
      try {
        await service.stop();
      } catch (error) {
        this.onStopFailed(service, error as Error);
      }
    }
  }
}
