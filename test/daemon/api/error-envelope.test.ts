import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode, type ErrorShape } from '../../../src/core/errors.js';
import { buildApiServer, type ApiServer } from '../../../src/daemon/api/api-server.js';
import { systemClock } from '../../../src/daemon/clock.js';

const EXPECTED_STATUS: Record<string, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  UNAUTHORIZED: 403,
  JOB_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  NAME_TAKEN: 409,
  VERSION_CONFLICT: 412,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  STORE_UNAVAILABLE: 503,
  DAEMON_UNAVAILABLE: 503,
  INTERNAL: 500,
};

describe('the error envelope of each error class', () => {
  let server: ApiServer;
  let refusal: ErrorShape;

  beforeAll(async () => {
    server = await buildApiServer(null, {
      // What the daemon's request router answers: here, whichever refusal the test set.
      call: async () => ({ ok: false, error: refusal }),
      authenticate: async () => ({ user: 'alice', uid: -1, gid: -1, pid: -1, groups: [] }),
      version: '0.0.0',
      clock: systemClock,
      onBug: () => undefined,
    });
  });

  afterAll(async () => {
    await server.app.close();
  });

  it.each(Object.entries(EXPECTED_STATUS))(
    'Given a %s refusal from the daemon, when the API answers, then the status is its class’s and the body its shape',
    async (code, status) => {
      refusal = {
        code: code as ErrorCode,
        message: `refused as ${code}`,
        hint: 'a hint',
        details: { retryAfterMs: 2_500 },
      };

      const answer = await server.app.inject({ method: 'GET', url: '/v1/jobs/nightly' });

      expect(answer.statusCode).toBe(status);
      expect(answer.json()).toEqual({ error: refusal });
      expect(answer.headers['retry-after']).toBe(
        ['RATE_LIMITED', 'IDENTITY_PROVIDER_UNAVAILABLE'].includes(code) ? '3' : undefined,
      );
    },
  );

  it('Given every error code there is, when its status is looked up, then the test above covers each class', () => {
    const classes = new Set(Object.values(EXPECTED_STATUS));
    expect([...classes].sort()).toEqual([400, 401, 403, 404, 409, 412, 413, 429, 500, 503]);
    expect(Object.keys(ERROR_CODES)).toEqual(expect.arrayContaining(Object.keys(EXPECTED_STATUS)));
  });

  it('Given malformed requests (bad encoding, a bad version, a bad number), when they come, then each gets 400 in the envelope and the server goes on', async () => {
    const malformed = [
      { method: 'GET' as const, url: '/v1/jobs/%E0%A4%A' },
      { method: 'POST' as const, url: '/v1/jobs/%/pause' },
      { method: 'GET' as const, url: `/v1/runs/${'a'.repeat(600)}` },
      { method: 'GET' as const, url: '/v1/jobs?limit=many' },
      { method: 'GET' as const, url: '/v1/jobs?limit=100000' },
      { method: 'PATCH' as const, url: '/v1/jobs/x', headers: { 'if-match': 'banana' }, payload: {} },
      {
        method: 'POST' as const,
        url: '/v1/jobs',
        headers: { 'content-type': 'application/json' },
        payload: '[1,',
      },
      {
        method: 'POST' as const,
        url: '/v1/jobs',
        headers: { 'content-type': 'text/plain' },
        payload: 'hello',
      },
      { method: 'GET' as const, url: '/v1/events', headers: { 'last-event-id': 'yesterday' } },
    ];

    for (const request of malformed) {
      const answer = await server.app.inject(request);
      expect({ url: request.url, status: answer.statusCode, code: answer.json().error.code }).toEqual({
        url: request.url,
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    }
  });

  it('Given a body that is not an object, when it is posted, then the refusal names the body itself', async () => {
    const answer = await server.app.inject({ method: 'POST', url: '/v1/jobs', payload: [] });

    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toMatchObject({
      message: 'Invalid body: Invalid input: expected object, received array.',
      details: { issues: [{ path: 'body', message: 'Invalid input: expected object, received array' }] },
    });
  });

  it('Given an If-Match of more digits than any version has, when a job is patched, then the refusal names the header', async () => {
    const answer = await server.app.inject({
      method: 'PATCH',
      url: '/v1/jobs/nightly',
      headers: { 'if-match': '"99999999999999999999"' },
      payload: {},
    });

    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.details.issues).toEqual([
      { path: 'headers.if-match', message: 'the job version, such as "3"' },
    ]);
  });
});
