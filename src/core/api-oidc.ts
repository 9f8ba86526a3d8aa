import { SchedError } from './errors.js';
import { isLoopbackHost } from './loopback-host.js';

/** `[api]`'s OIDC keys as configured: JWTs of one issuer, verified with the keys its JWKS URL serves. */
export interface OidcSettings {
  jwksUrl: string | null;
  issuer: string | null;
  audience: string | null;
  /** The claim whose values name a caller's role (viewer, operator, admin). */
  rolesClaim: string;
  /** The claim naming the user a JWT's caller acts as: who owns the jobs it adds. */
  ownerClaim: string;
}

export interface OidcPlan {
  jwksUrl: string;
  issuer: string;
  audience: string;
  rolesClaim: string;
  ownerClaim: string;
}

/**
 * Whether a JWKS may be fetched from `text`: an https URL, or http to this host only (an identity
 * provider's keys fetched in clear over a network could be anyone's).
 */
export function isJwksUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

const TRIO = ['jwks_url', 'issuer', 'audience'] as const;

/** Whether JWTs are accepted, and from whom: all of jwks_url, issuer and audience, or none of them. */
export function apiOidcPlan(settings: OidcSettings): OidcPlan | null {
  const { jwksUrl, issuer, audience, rolesClaim, ownerClaim } = settings;
  if (jwksUrl !== null && issuer !== null && audience !== null)
    return { jwksUrl, issuer, audience, rolesClaim, ownerClaim };
  const given = [jwksUrl, issuer, audience].map((value) => value !== null);
  if (!given.some(Boolean)) return null;
  const missing = TRIO.filter((_, index) => !given[index]);
  throw new SchedError(
    'VALIDATION_FAILED',
    `[api] ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing: JWTs need all of jwks_url, issuer and audience.`,
    {
      hint: 'Set [api] jwks_url, issuer and audience together to accept JWTs from an OIDC issuer, or none of them.',
      details: { keys: missing.map((key) => `api.${key}`) },
    },
  );
}
