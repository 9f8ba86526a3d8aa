import { tokenLabel, type Caller } from '../../core/access/roles.js';

// A request's caller goes to the services that record who acted as an argument, from the router down.
// Not an AsyncLocalStorage: once one is used, Node 20 runs its hooks on every promise the daemon makes,
// request or not (18 % of the creates a second at 8 x 8, and a few per cent of every fire).

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

/** The actor a request's caller is. */
export function requestActor(caller: Caller): Actor {
  return { user: caller.user, audited: auditName(caller) };
}
