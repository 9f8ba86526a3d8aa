import type { DaemonConnection } from '../../client/daemon-connection.js';
import { droppedReason, type EventSubscription } from '../../client/event-subscription.js';
import { listEveryJob } from '../../client/every-job.js';
import { SchedClient, type ClientTarget } from '../../client/sched-client.js';
import type { Job } from '../../core/job.js';
import { backoffMs } from '../../core/retry/backoff.js';
import type { RunSummary } from '../../core/run.js';
import type { StreamEventType } from '../../ipc/protocol.js';
import type { Effect, Snapshot } from '../state/types.js';
import type { DashBackend, Dispatch } from './backend.js';
import { ClusterPoller } from './cluster-poller.js';
import { EventBatcher } from './event-batcher.js';

/** Every event but live output, which only the run view asks for, one run at a time. */
export const DASH_EVENT_TYPES: readonly StreamEventType[] = [
  'daemon:started',
  'daemon:stopping',
  'job:created',
  'job:updated',
  'job:cancelled',
  'run:fired',
  'run:started',
  'run:finished',
  'run:lost',
  'run:retry-scheduled',
  'run:dead',
];

const RECONNECT = { initialBackoffMs: 250, factor: 2, maxBackoffMs: 5_000, maxRetries: 0, jitter: false };
const JOB_PAGE = 1_000;
const RECENT_RUNS = 500;
export const HISTORY_PAGE = 20;

export interface DaemonBackendOptions {
  /** This host's daemon by its socket, or a remote one's HTTPS API (`sched dash --remote`). */
  target: ClientTarget;
  connect?: (target: ClientTarget) => Promise<SchedClient>;
  now?: () => number;
  random?: () => number;
  /** The shortest time between two batches of events (and so between two frames that events cause). */
  coalesceMs?: number;
  /** Time between two reads of `cluster.status`. */
  clusterPollMs?: number;
}

/**
 * The dashboard's link to the daemon: a loop that connects, subscribes, reads a snapshot and then applies
 * events until the connection ends, and then tries again with bounded backoff, saying so on screen. Once
 * connected it also reads the cluster's status every couple of seconds (cluster-poller.ts). It never
 * throws out; only `stop()` ends it.
 */
export class DaemonBackend implements DashBackend {
  private client: SchedClient | null = null;
  private outputStream: EventSubscription | null = null;
  private cluster: ClusterPoller | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly connect: (target: ClientTarget) => Promise<SchedClient>;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly options: DaemonBackendOptions) {
    this.connect = options.connect ?? ((target) => SchedClient.connect(target));
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  start(dispatch: Dispatch): () => void {
    this.cluster = new ClusterPoller({
      client: () => this.client,
      dispatch,
      now: this.now,
      intervalMs: this.options.clusterPollMs,
    });
    void this.loop(dispatch);
    return () => this.stop();
  }

  stop(): void {
    this.stopped = true;
    this.cluster?.stop();
    this.wake?.();
    this.client?.close();
    this.client = null;
  }

  private async loop(dispatch: Dispatch): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      let reason = 'the daemon closed the connection';
      try {
        const client = await this.connect(this.options.target);
        if (this.stopped) {
          client.close();
          return;
        }
        this.client = client;
        // Subscribe before reading the snapshot: what changes meanwhile is queued and applied after it.
        const events = client.subscribe({ types: DASH_EVENT_TYPES });
        await events.ready;
        const snapshot = await readSnapshot(client);
        dispatch({ type: 'snapshot', snapshot, now: this.now() });
        this.cluster?.readNow();
        attempt = 0;
        await this.pump(events, dispatch);
      } catch (error) {
        reason = describeFailure(error);
      } finally {
        this.client?.close();
        this.client = null;
      }
      if (this.stopped) return;
      attempt += 1;
      const cap = backoffMs(attempt, RECONNECT, this.random);
      const delay = Math.round(cap / 2 + (this.random() * cap) / 2);
      dispatch({
        type: 'connection',
        connection: { kind: 'reconnecting', attempt, reason, retryAt: this.now() + delay },
        now: this.now(),
      });
      await this.sleep(delay);
    }
  }

  private async pump(events: EventSubscription, dispatch: Dispatch): Promise<void> {
    const batcher = new EventBatcher(
      (batch) => dispatch({ type: 'events', events: batch, now: this.now() }),
      this.options.coalesceMs,
    );
    try {
      for await (const event of events) batcher.push(event);
    } finally {
      batcher.flush();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  perform(effect: Effect, dispatch: Dispatch): void {
    const client = this.client;
    const say = (text: string, tone: 'info' | 'error' = 'info') =>
      dispatch({ type: 'flash', text, tone, now: this.now() });
    if (!client) {
      say('Not connected to the daemon; try again once it is back.', 'error');
      return;
    }
    const attempt = (what: string, request: Promise<string>) =>
      void request.then(say, (error: Error) => say(`Could not ${what}: ${error.message}`, 'error'));
    switch (effect.kind) {
      case 'trigger':
        return attempt(
          `trigger ${effect.name}`,
          client
            .call('job.trigger', { ref: effect.jobId })
            .then((run) => `Triggered ${effect.name}: run ${run.id}.`),
        );
      case 'pause':
        return attempt(
          `pause ${effect.name}`,
          client.call('job.pause', { ref: effect.jobId }).then(() => `Paused ${effect.name}; p resumes it.`),
        );
      case 'resume':
        return attempt(
          `resume ${effect.name}`,
          client.call('job.resume', { ref: effect.jobId }).then(() => `Resumed ${effect.name}.`),
        );
      case 'cancel':
        return void client.call('job.cancel', { ref: effect.jobId }).then(
          () => say(`Cancelled ${effect.name}; its history stays (sched history ${effect.name}).`),
          (error: Error) => say(cancelRefusal(effect.name, error), 'error'),
        );
      case 'kill':
        return attempt(
          `kill the run of ${effect.jobName}`,
          client
            .call('run.kill', { id: effect.runId })
            .then((run) => `Killed run ${run.id} of ${effect.jobName}.`),
        );
      case 'load-run':
        return void this.openOutput(client, effect.runId, dispatch);
    }
  }

  /** The run view: live output of that run (one at a time), then the run as the daemon keeps it. */
  private async openOutput(client: SchedClient, runId: string, dispatch: Dispatch): Promise<void> {
    void this.outputStream?.return();
    const stream = client.subscribe({ runId, types: ['run:output'] });
    this.outputStream = stream;
    try {
      await stream.ready;
      void this.pump(stream, dispatch).catch(() => {});
      dispatch({ type: 'run-loaded', run: await client.call('run.get', { id: runId }) });
    } catch (error) {
      dispatch({ type: 'run-failed', runId, error: (error as Error).message });
    }
  }

  async loadHistory(jobId: string): Promise<readonly RunSummary[]> {
    if (!this.client) throw new Error('not connected');
    const page = await this.client.call('run.list', { jobRef: jobId, limit: HISTORY_PAGE });
    return page.items;
  }
}

/** What the screen needs at (re)connect: the daemon, every live job, what runs, and the latest runs. */
export async function readSnapshot(client: Pick<DaemonConnection, 'call'>): Promise<Snapshot> {
  const [daemon, jobs, running, recent] = await Promise.all([
    client.call('daemon.status', {}),
    readAllJobs(client),
    client.call('run.list', { states: ['running'], limit: 1000 }),
    client.call('run.list', { limit: RECENT_RUNS }),
  ]);
  return { daemon, jobs, running: running.items, recent: recent.items };
}

function readAllJobs(client: Pick<DaemonConnection, 'call'>): Promise<Job[]> {
  return listEveryJob(client, { states: ['active', 'done', 'paused'], limit: JOB_PAGE });
}

/** A few words for the header: `daemon not running (ECONNREFUSED)`, `stream dropped: …`. */
function describeFailure(error: unknown): string {
  const dropped = droppedReason(error);
  if (dropped) return `stream dropped: ${dropped}`;
  const errno = (error as { details?: { errno?: unknown } }).details?.errno;
  if (typeof errno === 'string') return `daemon not running (${errno})`;
  return error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
}

/** The dashboard never forces a cancel: it says who runs after the job and how to cancel it anyway. */
function cancelRefusal(name: string, error: Error): string {
  const { code, details } = error as { code?: unknown; details?: { dependents?: unknown } };
  const dependents = details?.dependents;
  if (code !== 'HAS_DEPENDENTS' || !Array.isArray(dependents))
    return `Could not cancel ${name}: ${error.message}`;
  const verb = dependents.length === 1 ? 'runs' : 'run';
  return `Not cancelled: ${dependents.join(', ')} ${verb} after ${name}. To cancel it anyway: sched cancel ${name} --force`;
}
