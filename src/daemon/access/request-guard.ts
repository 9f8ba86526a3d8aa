import { decideAccess, type AccessDecision } from '../../core/access/decide-access.js';
import type { AccessRules, Caller } from '../../core/access/roles.js';
import { SchedError } from '../../core/errors.js';
import type { Job } from '../../core/job.js';
import type { Method } from '../../ipc/protocol.js';
import type { ServerConnection } from '../../ipc/transport.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { ConnectionCallers } from './connection-callers.js';
import { actedOn, METHOD_ACCESS, type ActedOn } from './method-access.js';
import { auditName } from './request-caller.js';
import type { RequestLimits } from './request-limits.js';

export interface RequestGuardDeps {
  rules: AccessRules;
  callers: ConnectionCallers;
  limits: RequestLimits;
  store: Store;
  clock: Clock;
  newId: () => string;
  /** The job id of a run named by its id or a unique prefix (throws as `sched kill RUN` would). */
  jobIdOfRun: (ref: string) => Promise<string>;
}

/**
 * Decides, before a request is handled, whether its caller may make it. A refusal changes nothing but the
 * audit log, which records it, and reaches the client as UNAUTHORIZED naming the role it needs. A request
 * allowed is then counted against `[limits]`, which may refuse it as RATE_LIMITED (not audited: a flood of
 * refusals must not become a flood of writes).
 */
export class RequestGuard {
  constructor(private readonly deps: RequestGuardDeps) {}

  /** The caller, once allowed; throws UNAUTHORIZED or RATE_LIMITED otherwise. */
  async admit(
    method: Method,
    params: Record<string, unknown>,
    connection: ServerConnection,
  ): Promise<Caller> {
    const caller = this.deps.callers.callerOf(connection);
    if (caller === null) {
      throw new SchedError('UNAUTHORIZED', 'The daemon could not learn from the kernel who you are.', {
        hint: 'Connect over the daemon’s Unix socket on this host; `sched doctor` checks the socket.',
      });
    }
    return this.admitCaller(method, params, caller);
  }

  /** As `admit`, for a caller another edge has already verified (an API token). */
  async admitCaller(method: Method, params: Record<string, unknown>, caller: Caller): Promise<Caller> {
    const verb = METHOD_ACCESS[method];
    const target = actedOn(method, params);
    const job = target === null ? null : await this.jobActedOn(target);
    const decision = decideAccess(caller, this.deps.rules, verb, job?.owner ?? null);
    if (decision.allowed) {
      const jobRef = job?.id ?? (target === null ? null : 'job' in target ? target.job : target.run);
      this.deps.limits.take(method, caller, decision.role, jobRef);
      return caller;
    }
    await this.auditRefusal(caller, method, decision, job);
    throw refusal(method, decision, caller);
  }

  private async jobActedOn(target: ActedOn): Promise<Job | null> {
    const { store } = this.deps;
    const ref = 'job' in target ? target.job : await this.jobIdOfRun(target.run);
    if (ref === null) return null;
    // As the handlers look it up: a live job of that name first, else the newest cancelled one.
    return (await store.findJob(ref)) ?? (await store.findJob(ref, { includeCancelledNames: true }));
  }

  private async jobIdOfRun(ref: string): Promise<string | null> {
    try {
      return await this.deps.jobIdOfRun(ref);
    } catch (error) {
      // No such run, or a prefix of several: the handler says so, to anyone who may act on jobs at all.
      if (
        error instanceof SchedError &&
        (error.code === 'RUN_NOT_FOUND' || error.code === 'RUN_ID_AMBIGUOUS')
      )
        return null;
      throw error;
    }
  }

  private auditRefusal(
    caller: Caller,
    method: Method,
    decision: Extract<AccessDecision, { allowed: false }>,
    job: Job | null,
  ): Promise<void> {
    return this.deps.store.appendAudit({
      id: this.deps.newId(),
      at: this.deps.clock.now(),
      actor: auditName(caller),
      action: 'access.denied',
      jobId: job?.id ?? null,
      before: null,
      after: { method, role: decision.role, needed: decision.needed, reason: decision.reason },
    });
  }
}

function refusal(
  method: Method,
  decision: Extract<AccessDecision, { allowed: false }>,
  caller: Caller,
): SchedError {
  return new SchedError(
    'UNAUTHORIZED',
    `Not allowed: ${method} needs the ${decision.needed} role (${decision.reason}).`,
    {
      hint: caller.token
        ? caller.token.kind === 'jwt'
          ? `The JWT of ${caller.token.name} gives the ${caller.token.role} role; its identity provider's roles claim decides it.`
          : `The API token ${caller.token.name} has the ${caller.token.role} role; an admin can make one with another (sched token create).`
        : 'Roles are given in [access] of the daemon’s config.toml (admins, operators, viewers); ask an admin.',
      details: { method, needed: decision.needed, role: decision.role },
    },
  );
}
