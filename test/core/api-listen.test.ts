import { describe, expect, it } from 'vitest';
import { apiListenPlan, type ApiSettings } from '../../src/core/api-listen.js';

const settings = (overrides: Partial<ApiSettings>): ApiSettings => ({
  listen: '127.0.0.1:8443',
  tlsCertFile: null,
  tlsKeyFile: null,
  allowPlainHttp: false,
  oidc: { jwksUrl: null, issuer: null, audience: null, rolesClaim: 'roles', ownerClaim: 'sub' },
  ...overrides,
});

const refusal = (overrides: Partial<ApiSettings>) => {
  try {
    apiListenPlan(settings(overrides));
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
};

describe('apiListenPlan', () => {
  it('Given no address, when planned, then the API is off', () => {
    expect(apiListenPlan(settings({ listen: null }))).toBeNull();
  });

  it('Given a certificate and key, when planned, then it listens with TLS on any address', () => {
    expect(apiListenPlan(settings({ listen: '0.0.0.0:8443', tlsCertFile: '/c', tlsKeyFile: '/k' }))).toEqual({
      host: '0.0.0.0',
      port: 8443,
      tls: { certFile: '/c', keyFile: '/k' },
    });
  });

  it('Given plain HTTP asked for on a loopback address, when planned, then it listens without TLS', () => {
    expect(apiListenPlan(settings({ listen: '[::1]:8080', allowPlainHttp: true }))).toEqual({
      host: '::1',
      port: 8080,
      tls: null,
    });
  });

  it('Given plain HTTP asked for on an address others reach, when planned, then it is refused and says why', () => {
    const error = refusal({ listen: '0.0.0.0:8080', allowPlainHttp: true });

    expect(error.message).toMatch(/Plain HTTP is allowed on a loopback address only/);
  });

  it('Given no TLS and no plain HTTP asked for, when planned, then it is refused naming the flags to give', () => {
    expect(refusal({}).message).toMatch(/needs TLS/);
  });

  it('Given a certificate without its key, when planned, then it is refused', () => {
    expect(refusal({ tlsCertFile: '/c' }).message).toMatch(/both a TLS certificate and its key/);
  });

  it('Given an address without a port, when planned, then it is refused', () => {
    expect(refusal({ listen: 'localhost' }).message).toMatch(/Invalid API address/);
  });
});
