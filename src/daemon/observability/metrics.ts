import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobState } from '../../core/job.js';
import type { BreakerStatus } from '../../ipc/protocol.js';
import type { DaemonEvents } from '../events.js';

export interface MetricSources {
  events: DaemonEvents;
  countJobs: (state: JobState) => Promise<number>;
  runningRuns: () => number;
  waitingRuns: () => number;
  troubledBreakers: () => BreakerStatus[];
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

    const { events } = sources;
    events.on('run:fired', (run) => {
      fired.inc({ trigger: run.trigger });
      if (run.trigger === 'schedule') lateness.observe(Math.max(0, run.createdAt - run.scheduledFor) / 1000);
    });
    events.on('run:finished', (run) => {
      runs.inc({ outcome: run.state });
      if (run.startedAt !== null && run.finishedAt !== null)
        duration.observe({ outcome: run.state }, (run.finishedAt - run.startedAt) / 1000);
    });
    events.on('run:lost', () => runs.inc({ outcome: 'lost' }));
    events.on('run:retry-scheduled', () => retries.inc());
    events.on('run:dead', () => dead.inc());
  }

  metricsText(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
