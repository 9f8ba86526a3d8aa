import { describe, expect, it } from 'vitest';
import { planPostgresTls } from '../../src/store/postgres/tls-plan.js';

const settings = (caFile: string | null, certFile: string | null = null, keyFile: string | null = null) => ({
  caFile,
  certFile,
  keyFile,
});
const BASE = 'postgres://u:p@db.example.com:5432/sched';

describe('planPostgresTls: the store URL and the pg_*_file settings taken together', () => {
  it('leaves a URL that says nothing about TLS, with no settings, to pg', () => {
    expect(planPostgresTls(BASE, settings(null))).toEqual({
      connectionString: BASE,
      mode: null,
      ...settings(null),
    });
  });

  it('takes sslmode and the files out of the URL, so that pg does not apply them over the plan', () => {
    const plan = planPostgresTls(`${BASE}?sslmode=verify-full&sslrootcert=/etc/ca.pem&application_name=x`);

    expect(plan.connectionString).toBe(`${BASE}?application_name=x`);
    expect(plan).toMatchObject({ mode: 'verify-full', caFile: '/etc/ca.pem' });
  });

  it('fills in from the settings what the URL lacks, and lets the URL win where both name a file', () => {
    const plan = planPostgresTls(
      `${BASE}?sslmode=verify-ca&sslrootcert=/url/ca.pem`,
      settings('/settings/ca.pem', '/settings/client.crt', '/settings/client.key'),
    );

    expect(plan).toMatchObject({
      mode: 'verify-ca',
      caFile: '/url/ca.pem',
      certFile: '/settings/client.crt',
      keyFile: '/settings/client.key',
    });
  });

  it('reads a CA setting without an sslmode as verify-full', () => {
    expect(planPostgresTls(BASE, settings('/etc/ca.pem')).mode).toBe('verify-full');
  });

  it('keeps an sslmode the URL gives, even with a CA setting', () => {
    expect(planPostgresTls(`${BASE}?sslmode=require`, settings('/etc/ca.pem')).mode).toBe('require');
  });

  it('reads pg’s ssl=true as verify-full and ssl=false as disable', () => {
    expect(planPostgresTls(`${BASE}?ssl=true`).mode).toBe('verify-full');
    expect(planPostgresTls(`${BASE}?ssl=false`).mode).toBe('disable');
  });

  it('refuses an unknown sslmode, naming the ones there are', () => {
    expect(() => planPostgresTls(`${BASE}?sslmode=no-verify`)).toThrow(
      expect.objectContaining({
        message: 'Unknown sslmode "no-verify" in the store URL.',
        hint: expect.stringContaining('verify-full'),
      }),
    );
  });

  it('refuses sslmode=disable beside a certificate setting, a certificate without its key, and verify-ca without a CA', () => {
    expect(() => planPostgresTls(`${BASE}?sslmode=disable`, settings('/etc/ca.pem'))).toThrow(
      /sslmode=disable turns TLS off/,
    );
    expect(() => planPostgresTls(BASE, settings(null, '/etc/client.crt'))).toThrow(
      /only the certificate is given/,
    );
    expect(() => planPostgresTls(`${BASE}?sslmode=verify-ca`)).toThrow(/verify-ca needs the CA/);
  });

  it('takes sslrootcert=system as the host’s CAs, with verify-full only, as libpq does', () => {
    expect(planPostgresTls(`${BASE}?sslrootcert=system`)).toMatchObject({
      mode: 'verify-full',
      caFile: 'system',
    });
    expect(() => planPostgresTls(`${BASE}?sslmode=require&sslrootcert=system`)).toThrow(
      /needs sslmode=verify-full/,
    );
  });
});
