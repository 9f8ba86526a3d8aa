import { describe, expect, it } from 'vitest';
import {
  claimValue,
  jwtCallerName,
  looksLikeJwt,
  roleFromClaim,
} from '../../../src/core/access/oidc-claims.js';

describe('the role a JWT’s roles claim gives', () => {
  it('Given a string naming a role, then it is that role', () => {
    expect(roleFromClaim('operator')).toBe('operator');
  });

  it('Given an array with other values, then only the values naming a sched role count', () => {
    expect(roleFromClaim(['staff', 'viewer', 'offline_access'])).toBe('viewer');
  });

  it('Given several roles in any order, then the highest wins', () => {
    expect(roleFromClaim(['viewer', 'admin', 'operator'])).toBe('admin');
    expect(roleFromClaim(['operator', 'viewer'])).toBe('operator');
  });

  it('Given no value naming a role, or no claim at all, then there is none', () => {
    expect(roleFromClaim(['staff', 'Admin', 'admins'])).toBeNull();
    expect(roleFromClaim([])).toBeNull();
    expect(roleFromClaim(undefined)).toBeNull();
    expect(roleFromClaim(3)).toBeNull();
    expect(roleFromClaim({ admin: true })).toBeNull();
    expect(roleFromClaim(['toString', 'constructor'])).toBeNull();
  });
});

describe('a claim of the payload', () => {
  it('Given a namespaced claim with dots in its name, then it is read whole', () => {
    expect(claimValue({ 'https://example.com/roles': ['admin'] }, 'https://example.com/roles')).toEqual([
      'admin',
    ]);
  });

  it('Given a dotted path to a nested claim, then it is followed', () => {
    expect(claimValue({ realm_access: { roles: ['operator'] } }, 'realm_access.roles')).toEqual(['operator']);
    expect(claimValue({ realm_access: 'x' }, 'realm_access.roles')).toBeUndefined();
    expect(claimValue({}, 'constructor.name')).toBeUndefined();
  });
});

describe('which bearers are JWTs', () => {
  it('Given three base64url parts, then it looks like a JWT; an API token does not', () => {
    expect(looksLikeJwt('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln')).toBe(true);
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.')).toBe(true);
    expect(looksLikeJwt('sched_AbC-dEf_123')).toBe(false);
    expect(looksLikeJwt('a.b')).toBe(false);
    expect(looksLikeJwt('a.b.c.d')).toBe(false);
  });

  it('names a JWT caller by its issuer and subject', () => {
    expect(jwtCallerName('https://id.example.com', 'u-1')).toBe('https://id.example.com#u-1');
  });
});
