import type { Logger } from 'pino';
import type { DaemonEvents } from './events.js';
import { RepeatThrottle } from '../core/peer/repeat-throttle.js';
import { logAlertEvents } from './notify/alert-log.js';
import { createDaemonLogger, type LogLevel } from './observability/logger.js';
import { hasErrorCode } from '../core/errors.js';

/** A kind of dropped peer message is logged at most once this often; /metrics counts every one. */
const DROP_LOG_WINDOW_MS = 10_000;

/** One log line per scheduler decision (fired, started, finished, retried, lost, dead), with job and run ids. */
export function logDaemonEvents(
  events: DaemonEvents,
  write: (line: string) => void,
  level: LogLevel = 'info',
  now: () => number = Date.now,
): Logger {
  const log = createDaemonLogger(write, level);
  events.on('daemon:started', ({ pid, metricsAddress }) =>
    log.info({ event: 'daemon:started', pid, metricsAddress }, 'daemon started'),
  );
  events.on('daemon:stopping', ({ reason }) =>
    log.info({ event: 'daemon:stopping', reason }, 'daemon stopping'),
  );
  events.on('orphans:stopped', ({ runId, processes }) =>
    log.warn(
      { event: 'orphans:stopped', runId, processes },
      'stopped what a killed daemon left running of this run',
    ),
  );
  events.on('orphans:unchecked', ({ reason }) =>
    log.warn(
      { event: 'orphans:unchecked', reason },
      'cannot check for processes a killed daemon left running',
    ),
  );
  events.on('job:created', (job) =>
    log.info(
      { event: 'job:created', jobId: job.id, name: job.name, nextRunAt: job.nextRunAt },
      'job created',
    ),
  );
  events.on('job:updated', (job) =>
    log.info(
      { event: 'job:updated', jobId: job.id, name: job.name, state: job.state, nextRunAt: job.nextRunAt },
      'job updated',
    ),
  );
  events.on('job:cancelled', (job) =>
    log.info({ event: 'job:cancelled', jobId: job.id, name: job.name }, 'job cancelled'),
  );
  events.on('run:fired', (run) =>
    log.info(
      {
        event: 'run:fired',
        runId: run.id,
        jobId: run.jobId,
        job: run.jobName,
        scheduledFor: run.scheduledFor,
        attempt: run.attempt,
        trigger: run.trigger,
      },
      'fired',
    ),
  );
  events.on('run:started', ({ runId, jobId, pid }) =>
    log.debug({ event: 'run:started', runId, jobId, pid }, 'started'),
  );
  events.on('run:finished', (run) => {
    const fields = {
      event: 'run:finished',
      runId: run.id,
      jobId: run.jobId,
      job: run.jobName,
      state: run.state,
      exitCode: run.exitCode,
      httpStatus: run.httpStatus,
      error: run.error,
    };
    if (run.state === 'succeeded') log.info(fields, 'finished');
    else log.warn(fields, 'finished without success');
  });
  events.on('run:lost', (run) =>
    log.warn({ event: 'run:lost', runId: run.id, jobId: run.jobId, attempt: run.attempt }, 'lost'),
  );
  events.on('run:retry-scheduled', (run) =>
    log.info(
      {
        event: 'run:retry-scheduled',
        runId: run.id,
        jobId: run.jobId,
        attempt: run.attempt,
        dueAt: run.dueAt,
      },
      'retry scheduled',
    ),
  );
  events.on('run:dead', (run) =>
    log.error(
      { event: 'run:dead', runId: run.id, jobId: run.jobId, attempt: run.attempt, error: run.error },
      'failed for good',
    ),
  );
  events.on('retention:pruned', (report) =>
    log.info({ event: 'retention:pruned', ...report }, 'pruned history'),
  );
  events.on('backup:written', (backup) =>
    log.info({ event: 'backup:written', ...backup }, 'wrote a backup of the store'),
  );
  events.on('backup:failed', ({ error }) =>
    log.error({ event: 'backup:failed', err: error }, 'could not write a scheduled backup'),
  );
  events.on('tick:late', (late) => log.warn({ event: 'tick:late', ...late }, 'fired late'));
  events.on('cluster:map', (map) => log.info({ event: 'cluster:map', ...map }, 'new shard map in force'));
  events.on('cluster:fenced', (fence) =>
    log.warn({ event: 'cluster:fenced', ...fence }, 'a fire from an outdated shard map was refused'),
  );
  events.on('store:unreachable', ({ since, error }) =>
    log.warn(
      { event: 'store:unreachable', since, err: error },
      hasErrorCode(error, 'NO_QUORUM')
        ? 'degraded: no majority of the voters reachable; firing every-host jobs on its own, writes refused'
        : 'degraded: the store cannot be reached; firing every-host jobs from the local copy',
    ),
  );
  events.on('store:reachable', (back) =>
    log.info({ event: 'store:reachable', ...back }, 'the store is reachable again; leaving degraded mode'),
  );
  events.on('cluster:voters', ({ voters }) =>
    log.info({ event: 'cluster:voters', voters }, `voters in force: ${voters.join(', ')}`),
  );
  events.on('cluster:forced', (forced) =>
    log.warn(
      { event: 'cluster:forced', ...forced },
      `started with voters FORCED by \`sched cluster recover --force\` (${forced.voters.join(', ')}): writes committed only on lost nodes may be lost; never restart a lost node with its old state`,
    ),
  );
  events.on('cluster:waiting', ({ for: what, error, waitedMs }) =>
    log.warn(
      { event: 'cluster:waiting', err: error, waitedMs },
      waitedMs === 0
        ? `waiting for a majority of the voters before ${what}${seenVoters(error)}; the start goes on once enough of them are up`
        : `still waiting for a majority of the voters before ${what}, for ${Math.round(waitedMs / 1_000)} s${seenVoters(error)}: are the others up, and do they share this node's cluster key?`,
    ),
  );
  events.on('cluster:error', ({ error }) =>
    log.warn({ event: 'cluster:error', err: error }, `cluster: ${error.message}`),
  );
  const drops = new RepeatThrottle(DROP_LOG_WINDOW_MS);
  events.on('peer:dropped', (drop) => {
    const { report, heldBack } = drops.admit(`${drop.channel}:${drop.reason}`, now());
    if (!report) return;
    const more = heldBack > 0 ? ` (and ${heldBack} more like it since the last such line)` : '';
    log.warn(
      { event: 'peer:dropped', ...drop, heldBack },
      `peer message dropped on the ${drop.channel} channel (${drop.reason}): ${drop.detail}${more}`,
    );
  });
  events.on('peer:keyring-changed', (change) =>
    log.info(
      { event: 'peer:keyring-changed', ...change },
      `cluster keyring: ${change.action} ${change.fingerprint}; primary ${change.primary}`,
    ),
  );
  events.on('run:reconciled', ({ run, outcome }) =>
    log.warn(
      {
        event: 'run:reconciled',
        runId: run.id,
        recorded: run.state,
        lateOutcome: outcome.state,
        exitCode: outcome.exitCode,
      },
      'a run recorded lost ended here later; the record stands',
    ),
  );
  events.on('socket:refused', (refusal) =>
    log.warn({ event: 'socket:refused', ...refusal }, `refused a malformed message: ${refusal.reason}`),
  );
  events.on('api:listening', ({ address, tls }) =>
    log.info(
      { event: 'api:listening', address, tls },
      `API listening on ${tls ? 'https' : 'http'}://${address}`,
    ),
  );
  events.on('api:refused', (refusal) =>
    log.warn({ event: 'api:refused', ...refusal }, `refused an API request: ${refusal.reason}`),
  );
  events.on('scheduler:error', ({ error }) =>
    log.error({ event: 'scheduler:error', err: error }, error.message),
  );
  logAlertEvents(events, log);
  return log;
}

/** ` (it sees 1 of 3 voters: a)` from a NO_QUORUM refusal's details, or "" when they are not there. */
function seenVoters(error: Error): string {
  const details = (error as { details?: { voters?: unknown; reachable?: unknown } }).details;
  const { voters, reachable } = details ?? {};
  if (!Array.isArray(voters) || !Array.isArray(reachable)) return '';
  const seen = reachable.length > 0 ? `: ${reachable.join(', ')}` : '';
  return ` (it sees ${reachable.length} of ${voters.length} voters${seen})`;
}
