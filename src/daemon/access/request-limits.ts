import { RATE_VERB_NOUNS, type RateLimits, type RateVerb } from '../../core/access/rate-limits.js';
import { tokenLabel, type Caller, type Role } from '../../core/access/roles.js';
import { BUCKET_REFILL_MS, takeToken, type TokenBucket } from '../../core/access/token-bucket.js';
import { SchedError } from '../../core/errors.js';
import type { Method } from '../../ipc/protocol.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import { METHOD_RATE_VERB } from './method-rate-verbs.js';

export interface RequestLimitsDeps {
  limits: RateLimits;
  clock: Clock;
  events: DaemonEvents;
}

/**
 * `[limits]`: a token bucket per caller (their uid, or their API token) and verb, and per job for manual runs. Only requests
 * are counted; the scheduler's own firing never passes here. A bucket left alone for a minute is full
 * again, as a new one would be, so it is forgotten: memory holds only the buckets used in the last minute.
 */
export class RequestLimits {
  /** In order of last use, oldest first, so the idle ones are found at the front. */
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(private readonly deps: RequestLimitsDeps) {}

  /** Buckets held now. */
  get size(): number {
    return this.buckets.size;
  }

  /** Counts the request; throws RATE_LIMITED, before anything is done, when its bucket is empty. */
  take(method: Method, caller: Caller, role: Role, jobRef: string | null): void {
    const verb = METHOD_RATE_VERB[method];
    if (verb === null || (role === 'admin' && this.deps.limits.exemptAdmins)) return;
    const perMinute = this.deps.limits.perMinute[verb];
    if (perMinute === null) return;
    // Monotonic: a wall clock set forward must not refill every bucket, nor one set back empty them.
    const now = this.deps.clock.monotonic();
    this.forgetIdle(now);
    // Each token has buckets of its own: tokens share no uid, and one must not spend another's allowance.
    const who = caller.token ? tokenLabel(caller.token) : String(caller.uid);
    const key = verb === 'trigger' ? `${who} ${verb} ${jobRef}` : `${who} ${verb}`;
    const take = takeToken(this.buckets.get(key), perMinute, now);
    this.buckets.delete(key);
    this.buckets.set(key, take.bucket);
    if (take.taken) return;
    const { retryAfterMs } = take;
    this.deps.events.emit('request:rate-limited', {
      user: caller.user,
      uid: caller.uid,
      method,
      verb,
      retryAfterMs,
    });
    throw rateLimited(
      method,
      verb,
      perMinute,
      retryAfterMs,
      caller.token ? tokenLabel(caller.token) : caller.user,
    );
  }

  private forgetIdle(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.at < BUCKET_REFILL_MS) return;
      this.buckets.delete(key);
    }
  }
}

function rateLimited(
  method: Method,
  verb: RateVerb,
  perMinute: number,
  retryAfterMs: number,
  user: string,
): SchedError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const scope = verb === 'trigger' ? ' for each job' : '';
  return new SchedError(
    'RATE_LIMITED',
    `Too many ${RATE_VERB_NOUNS[verb]} by ${user}: at most ${perMinute} a minute${scope}. ` +
      `Try again in ${seconds} s; nothing was done.`,
    {
      hint: `The limits are set under [limits] in the daemon’s config.toml (${verb} = ${perMinute}); an admin can raise them.`,
      details: { method, verb, limitPerMinute: perMinute, retryAfterMs },
    },
  );
}
