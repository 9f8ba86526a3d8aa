import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedError } from '../../../src/core/errors.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { API_ROUTES } from '../../../src/daemon/api/api-routes.js';
import { buildApiServer, OPENAPI_PATH, type ApiServer } from '../../../src/daemon/api/api-server.js';

/** fastify's `/v1/jobs/:ref` as OpenAPI writes it: `/v1/jobs/{ref}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

describe('the OpenAPI document', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await buildApiServer(null, {
      call: async () => ({ ok: true, result: {} }),
      authenticate: async () => {
        throw new SchedError('UNAUTHENTICATED', 'no token here');
      },
      version: '9.9.9',
      clock: systemClock,
      onBug: (error) => {
        throw error;
      },
    });
  });

  afterAll(async () => {
    await server.app.close();
  });

  const document = async () => {
    const answer = await server.app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(answer.statusCode).toBe(200);
    return answer.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
  };

  it('Given the API, when its document is fetched without a token, then a maintained validator finds it valid OpenAPI 3.1', async () => {
    const served = await document();
    const validator = new Validator();

    const result = await validator.validate(served);

    expect(result).toMatchObject({ valid: true });
    expect(served.openapi).toBe('3.1.0');
  });

  it('Given the routes fastify registered, when the document is read, then it lists each of them and nothing else', async () => {
    const served = await document();
    const documented = Object.entries(served.paths)
      .flatMap(([url, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${url}`),
      )
      .sort();

    // fastify adds a HEAD route for each GET, and the document itself is not one of the API's operations.
    const registered = server.routes
      .filter((route) => route.method !== 'HEAD' && route.url !== OPENAPI_PATH)
      .map((route) => `${route.method} ${openApiPath(route.url)}`)
      .sort();

    expect(documented).toEqual(registered);
    expect(registered).toContain('PATCH /v1/jobs/{ref}');
    expect(registered).toHaveLength(API_ROUTES.length);
  });

  it('Given a request without a token, when it reaches a route, then 401 comes in the error envelope', async () => {
    const answer = await server.app.inject({ method: 'GET', url: '/v1/jobs' });

    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toEqual({
      error: { code: 'UNAUTHENTICATED', message: 'no token here', details: {} },
    });
  });
});
