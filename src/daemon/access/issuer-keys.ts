import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type CryptoKey,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
} from 'jose';
import { jwksCooldownLeftMs } from '../../core/access/jwks-cooldown.js';
import { SchedError } from '../../core/errors.js';
import type { Clock } from '../clock.js';

export interface JwksTimings {
  /** How long fetching the JWKS may take before the request is answered IDENTITY_PROVIDER_UNAVAILABLE. */
  timeoutMs: number;
  /** How long fetched keys are used before the next JWT makes them be fetched again (jose's cacheMaxAge). */
  maxAgeMs: number;
  /**
   * After a failed fetch, how long JWTs are checked with the keys fetched before, or answered
   * IDENTITY_PROVIDER_UNAVAILABLE at once, without fetching again.
   */
  failureCooldownMs: number;
}

/**
 * jose's own timeout and cache age. The failure cooldown is ours (jose caches only keys it got, so while
 * the provider is down every JWT would fetch again, and wait for the timeout when it does not answer):
 * 10 s makes a provider that is down see one fetch each 10 s from a daemon, however hard its clients
 * retry; one that does not answer keeps requests waiting at most a third of the time (5 s in each 15);
 * and one that is back is used again within 10 s, sooner than a client's usual backoff and than the 30 s
 * jose waits before fetching again for a key id it does not know.
 */
export const JWKS_TIMINGS: JwksTimings = {
  timeoutMs: 5_000,
  maxAgeMs: 10 * 60_000,
  failureCooldownMs: 10_000,
};

/** jose's errors that say a JWT names no usable key, as opposed to the keys being out of reach. */
const LOOKUP_REFUSALS = new Set([
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_NOT_SUPPORTED',
]);

type KeySet = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

interface FailedFetch {
  /** Monotonic ms. */
  at: number;
  error: unknown;
  /** The keys of the last fetch that worked, if one did. */
  lastKnown: KeySet | null;
}

/**
 * The keys an OIDC issuer's JWKS URL serves, fetched by jose when first needed, when older than
 * `maxAgeMs`, and for a key id it does not know (merging fetches made at once). After a fetch fails, the
 * keys fetched before go on checking the JWTs signed with them, and no fetch is made for `failureCooldownMs`:
 * a JWT those keys cannot check is answered IDENTITY_PROVIDER_UNAVAILABLE at once.
 */
export class IssuerKeys {
  private readonly remote: ReturnType<typeof createRemoteJWKSet>;
  /** The last fetch, when it failed; null once one works again. */
  private failed: FailedFetch | null = null;

  constructor(
    private readonly jwksUrl: string,
    private readonly clock: Clock,
    private readonly timings: JwksTimings = JWKS_TIMINGS,
  ) {
    this.remote = createRemoteJWKSet(new URL(jwksUrl), {
      timeoutDuration: timings.timeoutMs,
      cacheMaxAge: timings.maxAgeMs,
    });
  }

  /** The key that checks a JWT with this header, for jose's jwtVerify. */
  readonly keyFor: KeySet = async (header, token) => {
    const failed = this.failed;
    const waitMs = jwksCooldownLeftMs(
      failed?.at ?? null,
      this.clock.monotonic(),
      this.timings.failureCooldownMs,
    );
    if (failed !== null && waitMs > 0) return this.lastKnownKey(header, token, failed, waitMs);
    try {
      const key = await this.remote(header, token);
      this.failed = null;
      return key;
    } catch (error) {
      if (error instanceof errors.JOSEError && LOOKUP_REFUSALS.has(error.code)) throw error;
      const jwks = this.remote.jwks();
      const failure = { at: this.clock.monotonic(), error, lastKnown: jwks ? createLocalJWKSet(jwks) : null };
      this.failed = failure;
      return this.lastKnownKey(header, token, failure, this.timings.failureCooldownMs);
    }
  };

  private async lastKnownKey(
    header: JWSHeaderParameters,
    token: FlattenedJWSInput,
    failed: FailedFetch,
    waitMs: number,
  ): Promise<CryptoKey> {
    if (failed.lastKnown === null) throw identityProviderUnavailable(this.jwksUrl, failed.error, waitMs);
    try {
      return await failed.lastKnown(header, token);
    } catch (error) {
      // A key id the old keys lack may be one the provider has just added: that cannot be known now.
      if (error instanceof errors.JWKSNoMatchingKey)
        throw identityProviderUnavailable(this.jwksUrl, failed.error, waitMs);
      throw error;
    }
  }
}

/** IDENTITY_PROVIDER_UNAVAILABLE, saying why and, when known, in how long the keys are fetched again. */
export function identityProviderUnavailable(
  jwksUrl: string,
  error: unknown,
  retryAfterMs?: number,
): SchedError {
  const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause : error).message : '';
  const when = retryAfterMs === undefined ? 'shortly' : `in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`;
  return new SchedError(
    'IDENTITY_PROVIDER_UNAVAILABLE',
    `The identity provider's keys cannot be fetched from ${jwksUrl}${cause ? ` (${cause})` : ''}: JWTs cannot be checked now.`,
    {
      hint: `Try again ${when}; API tokens (sched token create) do not depend on the identity provider.`,
      details: retryAfterMs === undefined ? { jwksUrl } : { jwksUrl, retryAfterMs },
    },
  );
}
