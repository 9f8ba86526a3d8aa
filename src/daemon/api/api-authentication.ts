import { looksLikeJwt } from '../../core/access/oidc-claims.js';
import type { Caller } from '../../core/access/roles.js';
import { SchedError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import type { ApiTokens } from '../access/api-tokens.js';
import type { JwtCallers } from '../access/jwt-callers.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import type { FailedAuthLimits } from './failed-auth-limits.js';

export interface ApiAuthenticationDeps {
  tokens: Pick<ApiTokens, 'callerOf'>;
  /** JWTs from `[api]`'s OIDC issuer; null when none is configured (every bearer is then a token). */
  jwts: Pick<JwtCallers, 'callerOf'> | null;
  limits: FailedAuthLimits;
  store: Pick<Store, 'appendAudit'>;
  clock: Clock;
  events: DaemonEvents;
  newId: () => string;
}

/**
 * Who an API request comes from: the token in its `Authorization: Bearer` header, or the JWT there when an
 * OIDC issuer is configured. Each refusal is audited
 * (by the remote address, never the token) and spends one of that address's failures; an address out of
 * failures is refused unread (RATE_LIMITED, not audited: a flood of refusals must not become a flood of
 * writes).
 */
export function apiAuthentication(deps: ApiAuthenticationDeps) {
  const refused = (remoteAddress: string, error: SchedError): SchedError => {
    const status = error.code === 'RATE_LIMITED' ? 429 : 401;
    deps.events.emit('api:refused', { remoteAddress, status, reason: error.message });
    return error;
  };
  return async (authorization: string | undefined, remoteAddress: string): Promise<Caller> => {
    try {
      deps.limits.check(remoteAddress);
    } catch (error) {
      throw refused(remoteAddress, error as SchedError);
    }
    try {
      const token = bearerToken(authorization);
      return deps.jwts !== null && looksLikeJwt(token)
        ? await deps.jwts.callerOf(token)
        : await deps.tokens.callerOf(token);
    } catch (error) {
      if (!(error instanceof SchedError) || error.code !== 'UNAUTHENTICATED') throw error;
      deps.limits.failed(remoteAddress);
      await deps.store.appendAudit({
        id: deps.newId(),
        at: deps.clock.now(),
        actor: `address:${remoteAddress}`,
        action: 'auth.failed',
        jobId: null,
        before: null,
        after: { remoteAddress, reason: error.details['reason'] ?? null },
      });
      throw refused(remoteAddress, error);
    }
  };
}

function bearerToken(authorization: string | undefined): string {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (token !== undefined) return token;
  throw new SchedError(
    'UNAUTHENTICATED',
    'The API needs a token: no Authorization: Bearer header was sent.',
    {
      hint: 'Ask an admin for a token (sched token create) and send it as Authorization: Bearer <token>.',
      details: { reason: 'missing' },
    },
  );
}
