import { describe, expect, it } from 'vitest';
import { apiOidcPlan, isJwksUrl, type OidcSettings } from '../../src/core/api-oidc.js';

const NONE: OidcSettings = {
  jwksUrl: null,
  issuer: null,
  audience: null,
  rolesClaim: 'roles',
  ownerClaim: 'sub',
};

describe('apiOidcPlan', () => {
  it('Given none of jwks_url, issuer and audience, then JWTs are not accepted', () => {
    expect(apiOidcPlan(NONE)).toBeNull();
  });

  it('Given all three, then JWTs of that issuer and audience are accepted with the claims named', () => {
    const all = {
      ...NONE,
      jwksUrl: 'https://id.example.com/jwks',
      issuer: 'https://id.example.com',
      audience: 'sched',
    };

    expect(apiOidcPlan(all)).toEqual({
      jwksUrl: 'https://id.example.com/jwks',
      issuer: 'https://id.example.com',
      audience: 'sched',
      rolesClaim: 'roles',
      ownerClaim: 'sub',
    });
  });

  it('Given only some of them, then it is refused naming the keys missing', () => {
    expect(() => apiOidcPlan({ ...NONE, issuer: 'https://id.example.com' })).toThrow(
      /\[api\] jwks_url and audience are missing/,
    );
    expect(() => apiOidcPlan({ ...NONE, jwksUrl: 'https://id.example.com/jwks', issuer: 'x' })).toThrow(
      /\[api\] audience is missing/,
    );
  });
});

describe('isJwksUrl', () => {
  it('accepts https anywhere and http on a loopback host only', () => {
    expect(isJwksUrl('https://id.example.com/.well-known/jwks.json')).toBe(true);
    expect(isJwksUrl('http://127.0.0.1:8080/jwks')).toBe(true);
    expect(isJwksUrl('http://localhost/jwks')).toBe(true);
    expect(isJwksUrl('http://[::1]:9/jwks')).toBe(true);
    expect(isJwksUrl('http://id.example.com/jwks')).toBe(false);
    expect(isJwksUrl('ftp://id.example.com/jwks')).toBe(false);
    expect(isJwksUrl('https://user:pw@id.example.com/jwks')).toBe(false);
    expect(isJwksUrl('not a url')).toBe(false);
  });
});
