import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import type { JobInput } from '../../src/core/job.js';
import { normalizeJobInput } from '../../src/core/normalize.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const ctx = { now, defaultTimezone: 'UTC' };
const valid: JobInput = { name: 'hook', every: '5m', http: 'https://example.com/hooks/nightly' };

function httpTarget(changes: Partial<JobInput>) {
  const target = normalizeJobInput({ ...valid, ...changes }, ctx).target;
  if (target.kind !== 'http') throw new Error(`expected an HTTP target, got ${target.kind}`);
  return target;
}

function normalizeError(changes: Partial<JobInput>): SchedError {
  try {
    normalizeJobInput({ ...valid, ...changes }, ctx);
  } catch (error) {
    if (error instanceof SchedError) return error;
    throw error;
  }
  throw new Error('expected normalizeJobInput to throw');
}

describe('normalizeJobInput: HTTP targets', () => {
  it('given only a URL, fills defaults: GET, no headers, expect 2xx, breaker 5 failures and 30s', () => {
    expect(normalizeJobInput(valid, ctx).target).toEqual({
      kind: 'http',
      method: 'GET',
      url: 'https://example.com/hooks/nightly',
      headers: {},
      expect: { kind: 'class', hundreds: 2 },
      breaker: { failureThreshold: 5, cooldownMs: 30_000 },
    });
  });

  it('given a payload and no method, defaults to POST because the payload is the body', () => {
    expect(httpTarget({ payload: '{"full": true}' }).method).toBe('POST');
  });

  it('given a lower-case method, stores it upper-case', () => {
    expect(httpTarget({ method: 'put', payload: '{}' }).method).toBe('PUT');
  });

  it('given every HTTP field, stores each', () => {
    expect(
      httpTarget({
        method: 'PATCH',
        payload: '[1]',
        headers: ['Authorization: Bearer abc:def', 'X-Trace:1', 'Accept:   application/json  '],
        expect: '200, 204',
        breakerFailures: 10,
        breakerCooldown: '2m',
      }),
    ).toEqual({
      kind: 'http',
      method: 'PATCH',
      url: 'https://example.com/hooks/nightly',
      headers: { Authorization: 'Bearer abc:def', 'X-Trace': '1', Accept: 'application/json' },
      expect: { kind: 'codes', codes: [200, 204] },
      breaker: { failureThreshold: 10, cooldownMs: 120_000 },
    });
  });

  it('given a URL in upper case without a path, stores its normal form', () => {
    expect(httpTarget({ http: 'HTTP://Example.COM' }).url).toBe('http://example.com/');
  });

  it('given a header with an empty value, keeps it', () => {
    expect(httpTarget({ headers: ['X-Empty:'] }).headers).toEqual({ 'X-Empty': '' });
  });

  it.each([
    ['1xx', { kind: 'class', hundreds: 1 }],
    ['2XX', { kind: 'class', hundreds: 2 }],
    ['5xx', { kind: 'class', hundreds: 5 }],
    ['100', { kind: 'codes', codes: [100] }],
    ['599', { kind: 'codes', codes: [599] }],
    ['200,204,200', { kind: 'codes', codes: [200, 204] }],
  ])('given --expect %s, stores %j', (expected, status) => {
    expect(httpTarget({ expect: expected }).expect).toEqual(status);
  });

  it.each([1, 1000])('given a breaker threshold of %i, accepts it', (breakerFailures) => {
    expect(httpTarget({ breakerFailures }).breaker.failureThreshold).toBe(breakerFailures);
  });
});

describe('normalizeJobInput: HTTP refusals', () => {
  it.each([
    ['an argv', { argv: ['./run.sh'] }],
    ['a shell script', { shell: 'echo hi' }],
  ])('given a URL and %s, refuses both with a hint', (_, changes) => {
    const error = normalizeError(changes);
    expect([error.code, error.message]).toEqual([
      'VALIDATION_FAILED',
      'A job either calls a URL or runs a command, not both.',
    ]);
    expect(error.hint).toContain('--http');
  });

  it.each([
    ['a relative URL', '/hooks/nightly', 'Invalid URL "/hooks/nightly".'],
    ['no URL at all', '', 'Invalid URL "".'],
    ['an ftp URL', 'ftp://example.com/file', 'The URL "ftp://example.com/file" is not http or https.'],
    ['a file URL', 'file:///etc/passwd', 'The URL "file:///etc/passwd" is not http or https.'],
  ])('given %s, refuses it naming the URL', (_, http, message) => {
    const error = normalizeError({ http });
    expect([error.code, error.message]).toEqual(['VALIDATION_FAILED', message]);
    expect(error.hint).toContain('https://');
  });

  it('given a URL with a password, refuses it without repeating the password', () => {
    const error = normalizeError({ http: 'https://me:s3cret@example.com/x' });
    expect(error.message).toBe('The URL "https://me:***@example.com/x" carries a user name or password.');
    expect(JSON.stringify(error.toShape())).not.toContain('s3cret');
    expect(error.hint).toContain('Authorization');
  });

  it.each([['GET'], ['head']])(
    'given method %s and a payload, refuses because the body would be lost',
    (method) => {
      const error = normalizeError({ method, payload: '{}' });
      expect(error.message).toBe(`A ${method.toUpperCase()} request cannot carry the payload as its body.`);
      expect(error.hint).toContain('--method POST');
    },
  );

  it.each(['GE T', 'M-SEARCH', '', 'PÖST'])('given the method "%s", refuses it', (method) => {
    expect(normalizeError({ method }).message).toBe(`Invalid HTTP method "${method}".`);
  });

  it.each(['CONNECT', 'trace'])('given the method %s, which fetch cannot send, refuses it', (method) => {
    expect(normalizeError({ method }).message).toBe(
      `The HTTP method ${method.toUpperCase()} cannot be sent by a job.`,
    );
  });

  it.each([
    ['Authorization Bearer x', 'The header "Authorization Bearer x" has no ":".'],
    [': value', 'The header ": value" does not start with a header name.'],
    ['Bad Name: x', 'The header "Bad Name: x" does not start with a header name.'],
  ])('given the header line "%s", refuses it naming the line', (line, message) => {
    const error = normalizeError({ headers: ['Accept: */*', line] });
    expect([error.code, error.message]).toEqual(['VALIDATION_FAILED', message]);
    expect(error.hint).toContain("'Name: value'");
  });

  it('given a header value with a line break, refuses it so no second header can be smuggled in', () => {
    expect(normalizeError({ headers: ['X-A: 1\r\nX-B: 2'] }).message).toBe(
      'The value of header X-A holds a line break, control character or non-Latin-1 character.',
    );
  });

  it.each(['Idempotency-Key', 'x-sched-fence'])(
    'given the header %s, refuses it because sched sets it on every request',
    (name) => {
      const error = normalizeError({ headers: [`${name}: mine`] });
      expect(error.message).toBe(`The header ${name} is set by sched on every request.`);
      expect(error.hint).toContain('Idempotency-Key (the run id)');
    },
  );

  it.each(['Content-Length', 'transfer-encoding', 'Connection'])(
    'given the header %s, refuses it because the HTTP client sets it',
    (name) => {
      expect(normalizeError({ headers: [`${name}: x`] }).message).toBe(
        `The header ${name} is set by the HTTP client for each request.`,
      );
    },
  );

  it('given one header twice in different cases, refuses the repeat', () => {
    expect(normalizeError({ headers: ['Accept: a', 'accept: b'] }).message).toBe(
      'The header accept is given twice (also as Accept).',
    );
  });

  it.each([
    ['6xx', 'has "6xx", which is not a status code from 100 to 599'],
    ['2xx,404', 'has "2xx", which is not a status code from 100 to 599'],
    ['200,', 'has an empty entry'],
    ['99', 'has "99", which is not a status code from 100 to 599'],
    ['600', 'has "600", which is not a status code from 100 to 599'],
    ['ok', 'has "ok", which is not a status code from 100 to 599'],
  ])('given --expect %s, refuses it', (expected, problem) => {
    const error = normalizeError({ expect: expected });
    expect(error.message).toBe(`The expected status "${expected}" ${problem}.`);
    expect(error.hint).toContain('2xx');
  });

  it.each([0, 1001, 2.5, Number.NaN])('given a breaker threshold of %s, refuses it', (breakerFailures) => {
    expect(normalizeError({ breakerFailures }).message).toBe(
      `The breaker threshold ${breakerFailures} is not a whole number from 1 to 1000.`,
    );
  });

  it.each([
    ['0s', 'Breaker cool-down "0s" must be longer than zero.'],
    ['30d', 'Breaker cool-down "30d" is too long; the longest is 24d.'],
    ['soon', 'Invalid breaker cool-down "soon".'],
  ])('given a breaker cool-down of %s, refuses it', (breakerCooldown, message) => {
    expect(normalizeError({ breakerCooldown }).message).toBe(message);
  });

  it.each([
    ['a working directory', { cwd: '/srv' }, '--cwd applies to command jobs only.'],
    ['an environment', { env: { A: '1' } }, '--env applies to command jobs only.'],
    ['both', { cwd: '/srv', env: { A: '1' } }, '--cwd and --env apply to command jobs only.'],
  ])('given a URL and %s, refuses the command-only fields', (_, changes, message) => {
    const error = normalizeError(changes);
    expect([error.code, error.message]).toEqual(['VALIDATION_FAILED', message]);
    expect(error.hint).toBeTruthy();
  });

  it.each([
    ['a method', { method: 'POST' }, '--method'],
    ['headers', { headers: ['A: b'] }, '--header'],
    ['an expected status', { expect: '2xx' }, '--expect'],
    ['a breaker threshold', { breakerFailures: 3 }, '--breaker-failures'],
    ['a breaker cool-down', { breakerCooldown: '1m' }, '--breaker-cooldown'],
  ])('given a command and %s, refuses the HTTP-only field', (_, changes, flag) => {
    const error = normalizeError({ http: undefined, argv: ['true'], ...changes });
    expect(error.message).toBe(`${flag} applies to HTTP jobs only.`);
    expect(error.hint).toContain('--http URL');
  });
});
