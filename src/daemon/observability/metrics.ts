import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobState } from '../../core/job.js';
import type { BreakerStatus, ClusterStatus } from '../../ipc/protocol.js';
import type { DaemonEvents } from '../events.js';

export interface MetricSources {
  events: DaemonEvents;
  countJobs: (state: JobState) => Promise<number>;
  runningRuns: () => number;
  waitingRuns: () => number;
  troubledBreakers: () => BreakerStatus[];
  /** The federation as this node sees it; null on a SQLite store. */
  cluster?: () => Promise<ClusterStatus | null>;
}

const BREAKER_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * The daemon's Prometheus metrics. Counters and histograms follow the event stream; gauges are read
 * when scraped, so nothing is polled between scrapes.
 */
export class DaemonMetrics {
  readonly registry = new Registry();
  readonly storeLatency: Histogram<'operation'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'sched_process_' });
    new Gauge({
      name: 'sched_jobs',
      help: 'Jobs by state.',
      labelNames: ['state'],
      registers,
      async collect() {
        for (const state of ['active', 'paused', 'cancelled'] as const)
          this.set({ state }, await sources.countJobs(state));
      },
    });
    const runs = new Counter({
      name: 'sched_runs_total',
      help: 'Finished runs by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    const fired = new Counter({
      name: 'sched_runs_fired_total',
      help: 'Runs fired, by trigger.',
      labelNames: ['trigger'],
      registers,
    });
    const retries = new Counter({
      name: 'sched_retries_total',
      help: 'Retries scheduled after a failed, timed-out or lost attempt.',
      registers,
    });
    const dead = new Counter({
      name: 'sched_dead_runs_total',
      help: 'Runs that failed for good (no retry left).',
      registers,
    });
    const lateness = new Histogram({
      name: 'sched_firing_lateness_seconds',
      help: 'How long after its due instant a scheduled run was fired.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60],
      registers,
    });
    const duration = new Histogram({
      name: 'sched_run_duration_seconds',
      help: 'How long finished runs ran.',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
      labelNames: ['outcome'],
      registers,
    });
    this.storeLatency = new Histogram({
      name: 'sched_store_operation_seconds',
      help: 'Latency of store operations as the daemon sees them (group commit included).',
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      labelNames: ['operation'],
      registers,
    });
    new Gauge({
      name: 'sched_runs_running',
      help: 'Runs executing now.',
      registers,
      collect() {
        this.set(sources.runningRuns());
      },
    });
    new Gauge({
      name: 'sched_queue_depth',
      help: 'Runs waiting to start (retries in backoff).',
      registers,
      collect() {
        this.set(sources.waitingRuns());
      },
    });
    new Gauge({
      name: 'sched_breaker_state',
      help: 'Circuit breaker per troubled HTTP origin: 0 closed (counting failures), 1 half-open, 2 open.',
      labelNames: ['origin'],
      registers,
      collect() {
        this.reset();
        for (const breaker of sources.troubledBreakers())
          this.set({ origin: breaker.origin }, BREAKER_VALUE[breaker.state]);
      },
    });

    const occurrences = new Counter({
      name: 'sched_occurrences_recorded_total',
      help: 'Instants the ledger recorded as not run, by outcome (skipped-overlap, missed-while-down, ...).',
      labelNames: ['outcome'],
      registers,
    });
    const rateLimited = new Counter({
      name: 'sched_requests_rate_limited_total',
      help: 'Requests refused by [limits], by verb and caller.',
      labelNames: ['verb', 'user'],
      registers,
    });
    const fenced = new Counter({
      name: 'sched_cluster_fenced_fires_total',
      help: 'Fires refused because this node fired from a shard map that a newer one had replaced.',
      registers,
    });
    this.clusterGauges(sources, registers);

    const { events } = sources;
    events.on('run:fired', (run) => {
      fired.inc({ trigger: run.trigger });
      // Measured from the planned start (the instant plus any --spread and --jitter), as the scheduler aims.
      if (run.trigger === 'schedule') lateness.observe(Math.max(0, run.createdAt - run.dueAt) / 1000);
    });
    events.on('occurrence:recorded', (entry) => occurrences.inc({ outcome: entry.outcome }));
    events.on('cluster:fenced', () => fenced.inc());
    events.on('request:rate-limited', ({ verb, user }) => rateLimited.inc({ verb, user }));
    events.on('run:finished', (run) => {
      runs.inc({ outcome: run.state });
      if (run.startedAt !== null && run.finishedAt !== null)
        duration.observe({ outcome: run.state }, (run.finishedAt - run.startedAt) / 1000);
    });
    events.on('run:lost', () => runs.inc({ outcome: 'lost' }));
    events.on('run:retry-scheduled', () => retries.inc());
    events.on('run:dead', () => dead.inc());
  }

  /** The cluster as this node sees it, read when scraped: one query of the membership table. */
  private clusterGauges(sources: MetricSources, registers: Registry[]): void {
    let scrape: Promise<ClusterStatus | null> | null = null;
    // The four gauges are collected one after another in a scrape; they share one read.
    const status = () => {
      scrape ??= (sources.cluster?.() ?? Promise.resolve(null)).finally(() =>
        setImmediate(() => (scrape = null)),
      );
      return scrape;
    };
    new Gauge({
      name: 'sched_cluster_term',
      help: 'Term of the shard map in force (the fencing token); 0 on a single daemon.',
      registers,
      async collect() {
        this.set((await status())?.term ?? 0);
      },
    });
    new Gauge({
      name: 'sched_cluster_is_coordinator',
      help: '1 while this node is the coordinator.',
      registers,
      async collect() {
        const cluster = await status();
        this.set(cluster === null || cluster.coordinator === cluster.node ? 1 : 0);
      },
    });
    new Gauge({
      name: 'sched_cluster_nodes',
      help: 'Nodes of the federation by state (alive: heartbeating).',
      labelNames: ['state'],
      registers,
      async collect() {
        const nodes = (await status())?.nodes ?? [];
        this.set(
          { state: 'alive' },
          nodes.filter((node) => node.alive).length || (nodes.length === 0 ? 1 : 0),
        );
        this.set({ state: 'dead' }, nodes.filter((node) => !node.alive).length);
      },
    });
    new Gauge({
      name: 'sched_cluster_shards_owned',
      help: 'Shards (of 256) the map in force gives this node.',
      registers,
      async collect() {
        const cluster = await status();
        this.set(cluster === null ? 256 : (cluster.nodes.find((node) => node.self)?.shards ?? 0));
      },
    });
  }

  metricsText(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
