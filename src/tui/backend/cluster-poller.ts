import type { DaemonConnection } from '../../client/daemon-connection.js';
import type { Dispatch } from './backend.js';

/** Heartbeats come about every second; reading twice as slowly keeps the ages honest at little cost. */
export const CLUSTER_POLL_MS = 2_000;

export interface ClusterPollerOptions {
  /** The connection to read from, or null while there is none (the header says so; nothing to add). */
  client: () => Pick<DaemonConnection, 'call'> | null;
  dispatch: Dispatch;
  now: () => number;
  intervalMs?: number;
}

/**
 * Reads `cluster.status` every couple of seconds while the dashboard runs. One read at a time, the next
 * timed from the end of the last, so a slow daemon is asked less often rather than piled up on. A failed
 * read (a daemon that does not know the method yet, a store that is down) is reported and the reads go
 * on; only `stop()` ends them.
 */
export class ClusterPoller {
  private timer: NodeJS.Timeout | null = null;
  private reading = false;
  private stopped = false;

  constructor(private readonly options: ClusterPollerOptions) {}

  /** Reads now, then every interval: on (re)connect, so the cluster view fills without waiting. */
  readNow(): void {
    if (this.stopped || this.reading) return;
    this.clearTimer();
    void this.read();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimer();
  }

  private async read(): Promise<void> {
    const { client, dispatch, now } = this.options;
    const connection = client();
    this.timer = null;
    this.reading = true;
    try {
      if (connection) {
        const status = await connection.call('cluster.status', {});
        if (!this.stopped) dispatch({ type: 'cluster-status', status, now: now() });
      }
    } catch (error) {
      if (!this.stopped && !isConnectionLost(error))
        dispatch({ type: 'cluster-unavailable', reason: describeUnavailable(error) });
    } finally {
      this.reading = false;
    }
    if (!this.stopped)
      this.timer = setTimeout(() => void this.read(), this.options.intervalMs ?? CLUSTER_POLL_MS);
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

// A lost connection is the connection loop's to report (the header shows it); the panel keeps its last answer.
function isConnectionLost(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'DAEMON_UNAVAILABLE';
}

/** `Unknown request "cluster.status". The client and daemon versions may differ; restart the daemon.` */
function describeUnavailable(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const hint = (error as { hint?: unknown }).hint;
  return typeof hint === 'string' ? `${error.message} ${hint}` : error.message;
}
