import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';

const host = { store: 'sqlite:/tmp/sched.db', socket: '/run/user/1000/sched.sock', timezone: 'UTC' };

function fromFile(text: string, env: Record<string, string> = {}) {
  return resolveConfig({ env, flags: {}, file: { path: '/etc/sched/config.toml', text }, host });
}

describe('[api] OIDC keys in config.toml', () => {
  it('given none, no issuer is set and the claims are roles and sub', () => {
    expect(fromFile('').api.oidc).toEqual({
      jwksUrl: null,
      issuer: null,
      audience: null,
      rolesClaim: 'roles',
      ownerClaim: 'sub',
    });
  });

  it('given all of them, reads them', () => {
    const config = fromFile(
      [
        '[api]',
        'jwks_url = "https://id.example.com/.well-known/jwks.json"',
        'issuer = "https://id.example.com"',
        'audience = "sched"',
        'roles_claim = "realm_access.roles"',
        'owner_claim = "preferred_username"',
      ].join('\n'),
    );
    expect(config.api.oidc).toEqual({
      jwksUrl: 'https://id.example.com/.well-known/jwks.json',
      issuer: 'https://id.example.com',
      audience: 'sched',
      rolesClaim: 'realm_access.roles',
      ownerClaim: 'preferred_username',
    });
  });

  it('given the environment, it wins over the file', () => {
    const config = fromFile('[api]\naudience = "sched"', { SCHED_API_AUDIENCE: 'scheduler' });
    expect(config.api.oidc.audience).toBe('scheduler');
  });

  it('given a JWKS URL in clear to another host, refuses it naming the key', () => {
    expect(() => fromFile('[api]\njwks_url = "http://id.example.com/jwks"')).toThrow(
      /"api.jwks_url" must be the https URL of an OIDC issuer’s JSON Web Key Set \(http for a loopback host only\)/,
    );
  });

  it('given an http JWKS URL on loopback, accepts it', () => {
    expect(fromFile('[api]\njwks_url = "http://127.0.0.1:8080/jwks"').api.oidc.jwksUrl).toBe(
      'http://127.0.0.1:8080/jwks',
    );
  });

  it('given an empty issuer or a claim name that is not text, refuses it naming the key', () => {
    expect(() => fromFile('[api]\nissuer = " "')).toThrow(/"api.issuer" must be the issuer/);
    expect(() => fromFile('[api]\nroles_claim = 3')).toThrow(/"api.roles_claim" must be the name/);
  });

  it('given a bad JWKS URL in the environment, refuses it naming the variable', () => {
    expect(() => fromFile('', { SCHED_API_JWKS_URL: 'jwks.json' })).toThrow(
      /SCHED_API_JWKS_URL must be the https URL/,
    );
  });
});
