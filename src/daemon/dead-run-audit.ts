import type { AuditEntry, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEvents } from './events.js';

/** Writes an audit entry for every run that failed for good (the dead-letter), naming its job and error. */
export function auditDeadRuns(
  events: DaemonEvents,
  store: Store,
  clock: Clock,
  actor: string,
  newId: () => string,
): void {
  events.on('run:dead', (run) => {
    const entry: AuditEntry = {
      id: newId(),
      at: clock.now(),
      actor,
      action: 'run.dead',
      jobId: run.jobId,
      before: null,
      after: {
        jobName: run.jobName,
        runId: run.id,
        attempt: run.attempt,
        state: run.state,
        error: run.error,
      },
    };
    store.appendAudit(entry).catch((error: Error) => events.emit('scheduler:error', { error }));
  });
}
