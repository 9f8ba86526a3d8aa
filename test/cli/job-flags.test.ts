import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobFieldsFromFlags } from '../../src/cli/job-flags.js';

describe('jobFieldsFromFlags', () => {
  it('given schedule, target and meta flags, when turned into fields, then each lands in its JobInput field', async () => {
    const fields = await jobFieldsFromFlags(
      {
        every: '5m',
        tz: 'Europe/Berlin',
        timeout: '1m',
        env: ['A=1'],
        label: ['team=ops'],
        description: 'Ping',
        payload: '{}',
      },
      ['curl', '-fsS', 'localhost'],
      '/home/me',
    );
    expect(fields).toEqual({
      every: '5m',
      timezone: 'Europe/Berlin',
      timeout: '1m',
      env: { A: '1' },
      labels: { team: 'ops' },
      description: 'Ping',
      payload: '{}',
      argv: ['curl', '-fsS', 'localhost'],
    });
  });

  it('given a relative --cwd, when turned into fields, then it is resolved against the current directory', async () => {
    const fields = await jobFieldsFromFlags({ cwd: 'jobs/backup' }, undefined, '/home/me');
    expect(fields.cwd).toBe(path.resolve('/home/me', 'jobs/backup'));
  });

  it('given no flags, when turned into fields, then no field is present', async () => {
    expect(await jobFieldsFromFlags({}, undefined, '/')).toEqual({});
  });

  it('given both --shell and a command after "--", when turned into fields, then it fails validation', async () => {
    await expect(jobFieldsFromFlags({ shell: 'echo hi' }, ['echo', 'hi'], '/')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('given retry flags, when turned into fields, then each lands in its JobInput field', async () => {
    const fields = await jobFieldsFromFlags(
      { retries: 3, backoff: '30s', 'backoff-factor': 1.5, 'backoff-max': '10m', jitter: false },
      ['./sync.sh'],
      '/',
    );
    expect(fields).toEqual({
      argv: ['./sync.sh'],
      retries: 3,
      backoff: '30s',
      backoffFactor: 1.5,
      backoffMax: '10m',
      jitter: false,
    });
  });

  it('given HTTP flags, when turned into fields, then each lands in its JobInput field, headers as typed', async () => {
    const fields = await jobFieldsFromFlags(
      {
        http: 'https://example.com/hook',
        method: 'put',
        header: ['Authorization: Bearer x', 'X-Team: ops'],
        expect: '200,204',
        'breaker-failures': 3,
        'breaker-cooldown': '1m',
      },
      undefined,
      '/',
    );
    expect(fields).toEqual({
      http: 'https://example.com/hook',
      method: 'put',
      headers: ['Authorization: Bearer x', 'X-Team: ops'],
      expect: '200,204',
      breakerFailures: 3,
      breakerCooldown: '1m',
    });
  });

  it.each([
    [{ http: 'https://example.com/' }, ['true'], 'Both --http and a command after "--" were given.'],
    [{ http: 'https://example.com/' }, [], 'Both --http and a command after "--" were given.'],
    [{ http: 'https://example.com/', shell: 'true' }, undefined, 'Both --http and --shell were given.'],
    [
      { http: 'https://example.com/', shell: 'true' },
      ['true'],
      '--http, --shell and a command after "--" were all given.',
    ],
    [{ shell: 'echo hi' }, ['echo', 'hi'], 'Both --shell and a command after "--" were given.'],
  ])(
    'given %j and the command %j, when turned into fields, then it refuses with a hint',
    async (flags, command, message) => {
      await expect(jobFieldsFromFlags(flags, command, '/')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message,
        hint: expect.stringContaining('--http URL'),
      });
    },
  );
});
