import { AsyncLocalStorage } from 'node:async_hooks';
import { tokenLabel, type Caller } from '../../core/access/roles.js';

/**
 * The caller of the request being handled. The router runs each request's handler inside it, so what the
 * services record (an audit entry's actor, a new job's owner) names who asked, however deep the call.
 * Outside a request (the scheduler firing, a run that died) there is none: the daemon acts as itself.
 */
const current = new AsyncLocalStorage<Caller>();

export function actingFor<T>(caller: Caller, work: () => T): T {
  return current.run(caller, work);
}

/** The caller of the request being handled; undefined when the daemon acts by itself. */
export function currentCaller(): Caller | undefined {
  return current.getStore();
}

/**
 * How the audit log names a caller: the user, and the uid and process the kernel gave for them; an API
 * token by its name and the user it acts as.
 */
export function auditName(caller: Caller): string {
  if (caller.token) return `${tokenLabel(caller.token)} (as ${caller.user})`;
  const pid = caller.pid >= 0 ? `, pid ${caller.pid}` : '';
  return `${caller.user} (uid ${caller.uid}${pid})`;
}

/** Who acts, as a service records it: the user (a new job's owner) and the audit log's fuller name. */
export interface Actor {
  user: string;
  audited: string;
}

/** The caller of the request being handled, or else `daemonUser` acting by itself. */
export function currentActor(daemonUser: string): Actor {
  const caller = current.getStore();
  return caller === undefined
    ? { user: daemonUser, audited: daemonUser }
    : { user: caller.user, audited: auditName(caller) };
}
