import { Counter, Gauge, type Registry } from 'prom-client';
import type { DaemonEvents } from '../events.js';

/** `sched_job_overdue{job}` and `sched_notifications_total{outcome,kind}`, on the daemon's registry. */
export function registerAlertMetrics(
  registry: Registry,
  events: DaemonEvents,
  watch: {
    overdueJobs(): ReadonlyMap<string, { jobName: string }>;
    watchedJobs(): ReadonlyMap<string, string>;
  },
): void {
  const deliveries = new Counter({
    name: 'sched_notifications_total',
    help: 'Attempts to send a notification, by what came of them (delivered, retrying, failed, suppressed).',
    labelNames: ['outcome', 'kind'],
    registers: [registry],
  });
  events.on('notification:attempted', (attempt) =>
    deliveries.inc({ outcome: attempt.outcome, kind: attempt.kind }),
  );
  new Gauge({
    name: 'sched_job_overdue',
    help: '1 while a job with --expect-success-every has gone that long without a success, else 0.',
    labelNames: ['job'],
    registers: [registry],
    collect() {
      this.reset();
      const overdue = watch.overdueJobs();
      for (const [jobId, jobName] of watch.watchedJobs())
        this.set({ job: jobName }, overdue.has(jobId) ? 1 : 0);
    },
  });
}
