import type { RateVerb } from '../../core/access/rate-limits.js';
import type { Method } from '../../ipc/protocol.js';

/**
 * What each request counts against in `[limits]`; null: never limited. Adding a method without an entry
 * here fails to compile.
 */
export const METHOD_RATE_VERB: Record<Method, RateVerb | null> = {
  'job.add': 'create',
  'job.update': 'update',
  'job.pause': 'update',
  'job.resume': 'update',
  'job.cancel': 'delete',
  'job.get': 'get',
  'run.get': 'get',
  'job.why': 'get',
  'job.occurrences': 'get',
  'job.list': 'list',
  'notify.list': 'list',
  // Each starts runs of one job by hand, so they share that job's bucket; a test message is sent at once,
  // past the `[notify]` throttle, to the same people a run of the job would reach.
  'job.trigger': 'trigger',
  'run.retry': 'trigger',
  'run.redrive': 'trigger',
  'notify.test': 'trigger',
  'run.list': 'history',
  'audit.list': 'history',
  // Stopping a runaway run must never have to wait.
  'run.kill': null,
  // Sent by running jobs themselves, which are the scheduler's own work.
  'job.ping': null,
  // One per `sched watch` or `dash`, and a status the dashboard and `doctor` poll.
  'events.subscribe': null,
  'daemon.status': null,
  'cluster.status': null,
  // Admins only.
  'job.backfill': null,
  'store.backup': null,
  'daemon.stop': null,
  'key.rotate': null,
  'cluster.keys.list': null,
  'cluster.keys.install': null,
  'cluster.keys.use': null,
  'cluster.keys.remove': null,
  'cluster.join': null,
  'cluster.leave': null,
  'token.create': null,
  'token.list': null,
  'token.revoke': null,
};
