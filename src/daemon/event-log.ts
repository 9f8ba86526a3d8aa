import type { DaemonEvents } from './events.js';

type Write = (line: string) => void;

/** One JSON line per scheduler decision, for journald or a log file. */
export function logDaemonEvents(events: DaemonEvents, write: Write): void {
  const log = (event: string, fields: Record<string, unknown>) =>
    write(JSON.stringify({ time: new Date().toISOString(), event, ...fields }));
  events.on('daemon:started', ({ pid }) => log('daemon:started', { pid }));
  events.on('daemon:stopping', ({ reason }) => log('daemon:stopping', { reason }));
  events.on('job:created', (job) =>
    log('job:created', { jobId: job.id, name: job.name, nextRunAt: job.nextRunAt }),
  );
  events.on('job:updated', (job) =>
    log('job:updated', { jobId: job.id, name: job.name, state: job.state, nextRunAt: job.nextRunAt }),
  );
  events.on('job:cancelled', (job) => log('job:cancelled', { jobId: job.id, name: job.name }));
  events.on('run:fired', (run) =>
    log('run:fired', {
      runId: run.id,
      jobId: run.jobId,
      scheduledFor: run.scheduledFor,
      trigger: run.trigger,
    }),
  );
  events.on('run:finished', (run) =>
    log('run:finished', {
      runId: run.id,
      jobId: run.jobId,
      state: run.state,
      exitCode: run.exitCode,
      error: run.error,
    }),
  );
  events.on('run:lost', (run) => log('run:lost', { runId: run.id, jobId: run.jobId, attempt: run.attempt }));
  events.on('run:retry-scheduled', (run) =>
    log('run:retry-scheduled', { runId: run.id, jobId: run.jobId, attempt: run.attempt, dueAt: run.dueAt }),
  );
  events.on('run:dead', (run) =>
    log('run:dead', { runId: run.id, jobId: run.jobId, attempt: run.attempt, error: run.error }),
  );
  events.on('tick:late', (late) => log('tick:late', late));
  events.on('scheduler:error', ({ error }) =>
    log('scheduler:error', { message: error.message, stack: error.stack }),
  );
}
