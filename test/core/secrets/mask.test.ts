import { describe, expect, it } from 'vitest';
import {
  MASK,
  maskDefinitionsIn,
  maskedInputPlaces,
  maskedPlaces,
  maskResponseHeaders,
} from '../../../src/core/secrets/mask.js';
import { normalizeJobInput } from '../../../src/core/normalize.js';
import { definition } from '../../store/conformance/fixtures.js';

const commandJob = {
  id: 'job-1',
  ...definition('with-env', {
    target: { kind: 'command', argv: ['true'], shell: null, cwd: null, env: { TOKEN: 'secret', MODE: 'x' } },
    payload: { key: 'secret' },
  }),
};
const httpJob = definition('with-header', {
  target: {
    kind: 'http',
    method: 'POST',
    url: 'http://127.0.0.1/hook',
    headers: { Authorization: 'Bearer secret' },
    expect: { kind: 'class', hundreds: 2 },
    breaker: { failureThreshold: 5, cooldownMs: 1000 },
  },
});

describe('masking secret values', () => {
  it('Given replies holding jobs at any depth, when masked, then every env value, header value and payload is ••• and names stay', () => {
    const reply = {
      page: { items: [commandJob], nextCursor: null },
      audit: [{ before: null, after: httpJob }],
    };

    const masked = maskDefinitionsIn(reply);

    expect(masked.page.items[0]!.target).toMatchObject({ env: { TOKEN: MASK, MODE: MASK } });
    expect(masked.page.items[0]!.payload).toBe(MASK);
    expect(masked.audit[0]!.after.target).toMatchObject({ headers: { Authorization: MASK } });
    expect(masked.audit[0]!.after.payload).toBeNull();
    expect(JSON.stringify(masked)).not.toContain('secret');
    expect(commandJob.target).toMatchObject({ env: { TOKEN: 'secret' } });
  });

  it('Given a reply with no job in it, when masked, then the very same object comes back', () => {
    const run = { id: 'run-1', jobId: 'job-1', responseHeaders: { a: 'b' }, stdoutTail: 'x' };

    expect(maskDefinitionsIn({ items: [run] })).toEqual({ items: [run] });
    const reply = { items: [run] };
    expect(maskDefinitionsIn(reply)).toBe(reply);
  });

  it('Given a masked definition, when its masked places are asked for, then each is named', () => {
    expect(maskedPlaces(maskDefinitionsIn(commandJob))).toEqual(['env TOKEN', 'env MODE', 'payload']);
    expect(maskedPlaces(commandJob)).toEqual([]);
  });

  it('Given response headers with a cookie and a token, when masked, then only those values are •••', () => {
    expect(
      maskResponseHeaders({
        'Set-Cookie': 'session=1',
        authorization: 'Bearer 2',
        'content-type': 'text/plain',
      }),
    ).toEqual({ 'Set-Cookie': MASK, authorization: MASK, 'content-type': 'text/plain' });
  });

  it('Given a run whose stored response headers hold a cookie, when a reply carries it, then the cookie is •••', () => {
    const reply = { id: 'run-1', jobId: 'job-1', responseHeaders: { 'set-cookie': 'session=1', etag: 'x' } };

    expect(maskDefinitionsIn(reply).responseHeaders).toEqual({ 'set-cookie': MASK, etag: 'x' });
  });

  it('Given an add whose env value is ••• as copied from an output, when normalized, then it is refused naming the place', () => {
    const input = { name: 'copied', every: '1h', argv: ['true'], env: { TOKEN: MASK } };

    expect(() => normalizeJobInput(input, { now: 0, defaultTimezone: 'UTC' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringContaining('env TOKEN') }),
    );
  });

  it('Given an import input holding ••• as an env value, a header value and the payload, when checked, then each place is named', () => {
    const input = {
      env: { TOKEN: MASK, MODE: 'x' },
      headers: ['Authorization: •••', 'Accept: */*'],
      payload: '"•••"',
    };

    expect(maskedInputPlaces(input)).toEqual(['env TOKEN', 'header Authorization', 'payload']);
    expect(maskedInputPlaces({ env: { MODE: 'x' }, payload: '{"a":1}' })).toEqual([]);
  });
});
