import type { Logger } from 'pino';
import type { DaemonEvents } from '../events.js';

/** Log lines for the dead-man's switch and notification attempts; targets carry no path, query or secret. */
export function logAlertEvents(events: DaemonEvents, log: Logger): void {
  events.on('job:overdue', (overdue) =>
    log.warn({ event: 'job:overdue', ...overdue }, `job ${overdue.jobName} is overdue`),
  );
  events.on('job:recovered', (recovered) =>
    log.info({ event: 'job:recovered', ...recovered }, `job ${recovered.jobName} succeeded again`),
  );
  events.on('notification:attempted', (attempt) => {
    const line = { event: 'notification:attempted', ...attempt };
    const message = `${attempt.kind} notification to ${attempt.target}: ${attempt.outcome}`;
    if (attempt.outcome === 'failed') log.warn(line, message);
    else log.info(line, message);
  });
}
