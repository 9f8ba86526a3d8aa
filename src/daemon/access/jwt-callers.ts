import { errors, jwtVerify, type JWTPayload } from 'jose';
import { claimValue, jwtCallerName, roleFromClaim } from '../../core/access/oidc-claims.js';
import type { Caller } from '../../core/access/roles.js';
import type { OidcPlan } from '../../core/api-oidc.js';
import { SchedError } from '../../core/errors.js';
import type { Clock } from '../clock.js';
import { identityProviderUnavailable, IssuerKeys, JWKS_TIMINGS, type JwksTimings } from './issuer-keys.js';

/** Asymmetric algorithms only: with an HMAC one, anyone holding the public JWKS could sign. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** How far the issuer's clock may be from ours when exp, nbf and iat are checked. */
const CLOCK_TOLERANCE_S = 5;
/** The longest owner a JWT may name, as for `sched token create --owner`. */
const MAX_OWNER_LENGTH = 64;

/** jose's errors that say the JWT is bad, as opposed to its issuer's keys being out of reach. */
const REFUSALS: Readonly<Record<string, string>> = {
  ERR_JWT_EXPIRED: 'expired',
  ERR_JWT_CLAIM_VALIDATION_FAILED: 'invalid-claims',
  ERR_JOSE_ALG_NOT_ALLOWED: 'algorithm-not-allowed',
  ERR_JOSE_NOT_SUPPORTED: 'algorithm-not-allowed',
  ERR_JWS_INVALID: 'malformed',
  ERR_JWT_INVALID: 'malformed',
  ERR_JWKS_NO_MATCHING_KEY: 'unknown-key',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'unknown-key',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'bad-signature',
};

/**
 * Callers from JWTs of the one OIDC issuer `[api]` names, verified against the keys its JWKS URL serves
 * (see IssuerKeys for when they are fetched, and what is done while they cannot be). The
 * caller acts as the owner claim's user with the role the roles claim gives, as a token with `--owner`.
 */
export class JwtCallers {
  private readonly keys: IssuerKeys;

  constructor(
    private readonly plan: OidcPlan,
    private readonly clock: Clock,
    /** The daemon's own account: a JWT never acts as it, nor as root (see callerOf). */
    private readonly daemonUser: string,
    timings: JwksTimings = JWKS_TIMINGS,
  ) {
    this.keys = new IssuerKeys(plan.jwksUrl, clock, timings);
  }

  /** The caller a JWT stands for; UNAUTHENTICATED when it is refused, never saying more than why. */
  async callerOf(jwt: string): Promise<Caller> {
    const payload = await this.verified(jwt);
    const subject = payload.sub ?? '';
    const role = roleFromClaim(claimValue(payload, this.plan.rolesClaim));
    if (role === null) throw refusal('no-role', `its ${this.plan.rolesClaim} claim names no sched role`);
    const owner = claimValue(payload, this.plan.ownerClaim);
    if (typeof owner !== 'string' || owner === '' || owner.length > MAX_OWNER_LENGTH)
      throw refusal('no-owner', `its ${this.plan.ownerClaim} claim is no user name`);
    // A command job of root's or of the daemon's own user runs with the daemon's powers: an admin may make
    // a token act so (`--owner`), but an identity provider's claim must not be enough.
    if (owner === 'root' || owner === this.daemonUser)
      throw refusal(
        'privileged-owner',
        `its ${this.plan.ownerClaim} claim names root or the daemon's own user`,
      );
    return {
      user: owner,
      uid: -1,
      gid: -1,
      pid: -1,
      groups: [],
      token: { name: jwtCallerName(this.plan.issuer, subject), role, kind: 'jwt' },
    };
  }

  private async verified(jwt: string): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(jwt, this.keys.keyFor, {
        issuer: this.plan.issuer,
        audience: this.plan.audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['sub', 'exp'],
      });
      return payload;
    } catch (error) {
      if (error instanceof SchedError) throw error;
      if (!(error instanceof errors.JOSEError)) throw identityProviderUnavailable(this.plan.jwksUrl, error);
      const reason = REFUSALS[error.code];
      if (reason === undefined) throw identityProviderUnavailable(this.plan.jwksUrl, error);
      const claim = error instanceof errors.JWTClaimValidationFailed ? ` (${error.claim})` : '';
      throw refusal(reason, `${reason.replaceAll('-', ' ')}${claim}`);
    }
  }
}

function refusal(reason: string, why: string): SchedError {
  return new SchedError('UNAUTHENTICATED', `The JWT was refused: ${why}.`, {
    hint: 'Send a JWT from the identity provider that [api] issuer names, for the [api] audience, with a role in its roles claim.',
    details: { reason },
  });
}
