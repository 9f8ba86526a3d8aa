import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobFieldsFromFlags } from '../../src/cli/job-flags.js';
import { assertNoRetiredJitterSwitch, timePolicyClears } from '../../src/cli/time-policy-flags.js';

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
      { retries: 3, backoff: '30s', 'backoff-factor': 1.5, 'backoff-max': '10m', 'backoff-jitter': false },
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

describe('time-policy flags', () => {
  it('given every time-policy flag, when turned into fields, then each lands in its JobInput field as typed', async () => {
    const fields = await jobFieldsFromFlags(
      {
        cron: '0 3 * * *',
        concurrency: 'queue',
        misfire: 'count:3',
        'catchup-window': '2h',
        'skip-if-next-within': '10m',
        'dst-gap': 'skip',
        'dst-repeat': 'both',
        spread: '5m',
        jitter: '30s',
        after: ['backup:failure', 'lint'],
        'after-all': ['a', 'b'],
      },
      ['./report.sh'],
      '/',
    );
    expect(fields).toEqual({
      cron: '0 3 * * *',
      argv: ['./report.sh'],
      concurrency: 'queue',
      misfire: 'count:3',
      catchupWindow: '2h',
      skipIfNextWithin: '10m',
      dstGap: 'skip',
      dstRepeat: 'both',
      spread: '5m',
      fireJitter: '30s',
      after: ['backup:failure', 'lint'],
      afterAll: ['a', 'b'],
    });
  });

  it('given --jitter and --no-backoff-jitter together, when turned into fields, then one is the fire jitter and the other the retry switch', async () => {
    const fields = await jobFieldsFromFlags({ jitter: '45s', 'backoff-jitter': false }, undefined, '/');
    expect(fields).toEqual({ fireJitter: '45s', jitter: false });
  });

  it('given every --clear-* time-policy flag, when mapped, then each names its JobPatch clear entry', () => {
    expect(
      timePolicyClears({
        'clear-spread': true,
        'clear-jitter': true,
        'clear-skip-if-next-within': true,
        'clear-after': true,
        'clear-after-all': true,
      }),
    ).toEqual(['spread', 'fireJitter', 'skipIfNextWithin', 'after', 'afterAll']);
  });

  it('given no --clear-* flag, when mapped, then nothing is cleared', () => {
    expect(timePolicyClears({ 'clear-jitter': false })).toEqual([]);
  });

  it('given the retired --no-jitter, when checked, then it fails naming --no-backoff-jitter', () => {
    expect(() => assertNoRetiredJitterSwitch(['nightly', '--no-jitter'])).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: '--no-jitter is now --no-backoff-jitter.',
        hint: expect.stringContaining('--clear-jitter'),
      }),
    );
  });

  it.each([[['nightly', '--jitter']], [['nightly', '--jitter', '--json']]])(
    'given --jitter used as a switch (%j), when checked, then it fails saying it needs a duration',
    (own) => {
      expect(() => assertNoRetiredJitterSwitch(own)).toThrow(/--jitter needs a duration/);
    },
  );

  it('given --jitter with a duration, when checked, then it passes', () => {
    expect(() => assertNoRetiredJitterSwitch(['nightly', '--jitter', '30s', '--jitter=1m'])).not.toThrow();
  });
});
