import type { AccessVerb } from '../../core/access/decide-access.js';
import type { Method } from '../../ipc/protocol.js';

/** What each request needs (see AccessVerb); adding a method without an entry here fails to compile. */
export const METHOD_ACCESS: Record<Method, AccessVerb> = {
  'daemon.status': 'read',
  'job.list': 'read',
  'job.get': 'read',
  'run.list': 'read',
  'run.get': 'read',
  'audit.list': 'read',
  'job.why': 'read',
  'job.occurrences': 'read',
  'notify.list': 'read',
  'events.subscribe': 'read',
  // Read-only, and the dashboard polls it every few seconds for everyone who watches it.
  'cluster.status': 'read',
  'job.add': 'add',
  'job.update': 'own-job',
  'job.cancel': 'own-job',
  'job.pause': 'own-job',
  'job.resume': 'own-job',
  'job.trigger': 'own-job',
  'job.ping': 'own-job',
  'notify.test': 'own-job',
  'run.kill': 'own-job',
  'run.retry': 'own-job',
  'run.redrive': 'own-job',
  'job.backfill': 'administer',
  'store.backup': 'administer',
  'daemon.stop': 'administer',
  'key.rotate': 'administer',
  // The cluster key opens every member's traffic: even its fingerprints are for admins.
  'cluster.keys.list': 'administer',
  'cluster.keys.install': 'administer',
  'cluster.keys.use': 'administer',
  'cluster.keys.remove': 'administer',
  'cluster.join': 'administer',
  'cluster.leave': 'administer',
  'token.create': 'administer',
  'token.list': 'administer',
  'token.revoke': 'administer',
};

/** The job or run an `own-job` request acts on, as the client named it. */
export type ActedOn = { job: string } | { run: string };

export function actedOn(method: Method, params: Record<string, unknown>): ActedOn | null {
  if (METHOD_ACCESS[method] !== 'own-job') return null;
  if (method === 'run.kill' || method === 'run.retry') return { run: String(params['id']) };
  if (method === 'run.redrive') return { job: String(params['jobRef']) };
  return { job: String(params['ref']) };
}
