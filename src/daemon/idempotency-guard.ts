import { createHash } from 'node:crypto';
import { SchedError } from '../core/errors.js';
import { IDEMPOTENCY_WINDOW_MS, canonicalJson, matchIdempotentRequest } from '../core/idempotency.js';
import type { IdempotencyClaim, Store } from '../store/store.js';
import type { Clock } from './clock.js';

/**
 * Makes a request with an idempotency key happen once: a repeat within 24 h (also after a restart, or
 * when the first reply was lost) gets the first answer back, and a different request under a used key
 * is refused. The answer is stored in the same transaction as the change it reports.
 */
export class IdempotencyGuard {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async run<T>(
    method: string,
    key: string | undefined,
    request: unknown,
    perform: (claim: IdempotencyClaim | undefined) => Promise<T>,
  ): Promise<T> {
    if (key === undefined) return perform(undefined);
    const fingerprint = createHash('sha256').update(canonicalJson(request)).digest('hex');
    const replayed = await this.lookup(method, key, fingerprint);
    if (replayed.found) return replayed.response as T;
    const now = this.clock.now();
    try {
      return await perform({
        key,
        method,
        fingerprint,
        createdAt: now,
        expiredBefore: now - IDEMPOTENCY_WINDOW_MS,
      });
    } catch (error) {
      // Two requests with one key raced and the other one won: answer as a replay of it. It may have won on
      // the key, or earlier in the same change (its job took the name first: NAME_TAKEN), as a retry sent while
      // the first was still being made does, e.g. through a peer cluster's log after a timed-out commit.
      if (error instanceof SchedError) {
        const raced = await this.lookup(method, key, fingerprint);
        if (raced.found) return raced.response as T;
      }
      throw error;
    }
  }

  private async lookup(
    method: string,
    key: string,
    fingerprint: string,
  ): Promise<{ found: boolean; response?: unknown }> {
    const record = await this.store.findIdempotencyRecord(key);
    const verdict = matchIdempotentRequest(
      record && {
        requestFingerprint: record.fingerprint,
        createdAt: record.createdAt,
        method: record.method,
      },
      { fingerprint, method },
      this.clock.now(),
    );
    if (verdict === 'replay') return { found: true, response: record!.response };
    if (verdict === 'mismatch') {
      throw new SchedError(
        'IDEMPOTENCY_MISMATCH',
        `The idempotency key "${key}" was already used for a different request.`,
        {
          hint: 'Use a new key for a new request; repeat a request only with exactly the same arguments.',
          details: { key, firstUsedAt: new Date(record!.createdAt).toISOString(), method: record!.method },
        },
      );
    }
    return { found: false };
  }
}
