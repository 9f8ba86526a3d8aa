import { SchedError } from '../../core/errors.js';
import { maskDefinitionsIn } from '../../core/secrets/mask.js';
import type { AuditEntry } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { auditName } from '../access/request-caller.js';
import type { Caller } from '../../core/access/roles.js';

export interface ReplySecretsDeps {
  /** Whether a caller is an admin. */
  isAdmin: (caller: Caller) => boolean;
  clock: Clock;
  newId: () => string;
  appendAudit: (entry: AuditEntry) => Promise<void>;
}

/** The requests that may ask for secret values in clear (`sched show --reveal`, `sched export --reveal`). */
const REVEALING = new Set(['job.get', 'job.list']);

/**
 * Every reply leaves the daemon with its secret values masked, except that of a request that asks to
 * `reveal`, which an admin alone may, and which is audited with the jobs it showed.
 */
export class ReplySecrets {
  constructor(private readonly deps: ReplySecretsDeps) {}

  /** The reply to `caller`'s request, made by `answer`. */
  async reply(
    method: string,
    params: unknown,
    caller: Caller,
    answer: () => Promise<unknown>,
  ): Promise<unknown> {
    const reveal = REVEALING.has(method) && (params as { reveal?: boolean }).reveal === true;
    if (!reveal) return maskDefinitionsIn(await answer());
    const actor = auditName(caller);
    if (!this.deps.isAdmin(caller))
      throw new SchedError(
        'UNAUTHORIZED',
        `${actor} may not reveal secret values: that takes the admin role.`,
        {
          hint: 'Leave out --reveal to see the job with its secret values masked, or ask an admin.',
          details: { needed: 'admin' },
        },
      );
    const result = await answer();
    await this.audit(method, result, actor);
    return result;
  }

  private async audit(method: string, result: unknown, actor: string): Promise<void> {
    const jobs = revealedJobs(result);
    await this.deps.appendAudit({
      id: this.deps.newId(),
      at: this.deps.clock.now(),
      actor,
      action: 'secrets.reveal',
      jobId: jobs.length === 1 ? jobs[0]!.id : null,
      before: null,
      after: { request: method, jobs: jobs.map(({ id, name }) => ({ id, name })) },
    });
  }
}

type JobRef = { id: string; name: string };

function revealedJobs(result: unknown): JobRef[] {
  const value = result as { job?: JobRef; items?: JobRef[] };
  if (value.job) return [value.job];
  return value.items ?? [];
}
