import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, createToken, startApiDaemon } from '../../support/api-harness.js';
import { sched, useDaemons } from '../../support/sched-harness.js';

// One daemon for the file: each case uses jobs of its own names.
describe('POST /v1/call/{method}: the socket requests over HTTPS', () => {
  const daemons = useDaemons(afterAll);
  let home: string;
  let api: ReturnType<typeof apiClient>;
  let operator: string;
  let viewer: string;

  beforeAll(async () => {
    ({ home, api } = await startApiDaemon(daemons));
    operator = await createToken(home, ['--name', 'caller', '--role', 'operator', '--owner', 'root']);
    viewer = await createToken(home, ['--name', 'looker', '--role', 'viewer']);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  const audit = async () =>
    (await sched(home, ['audit', '--json', '--limit', '500'])).json.items as {
      actor: string;
      action: string;
      after: Record<string, unknown> | null;
    }[];

  it('Given an operator token, when a job is added twice with one Idempotency-Key, then it is added once, audited under the token, and answered as the socket answers', async () => {
    const add = () =>
      api.request('POST', '/v1/call/job.add', {
        token: operator,
        headers: { 'idempotency-key': 'call-once' },
        body: { input: { name: 'call-added', every: '1h', argv: ['true'] } },
      });

    const [first, again] = [await add(), await add()];
    const overSocket = await sched(home, ['show', 'call-added', '--json']);

    expect(first.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(first.body).toEqual(overSocket.json.job);
    const created = (await audit()).filter(
      (entry) => entry.action === 'job.create' && entry.after?.name === 'call-added',
    );
    expect(created).toEqual([expect.objectContaining({ actor: 'token:caller (as root)' })]);
  });

  it('Given no token, or a viewer token for a change, when a call is made, then it is refused as every route refuses it: 401, then 403 audited', async () => {
    const anonymous = await api.request('POST', '/v1/call/job.list', { token: null, body: {} });
    const refused = await api.request('POST', '/v1/call/job.add', {
      token: viewer,
      body: { input: { name: 'call-viewer', every: '1h', argv: ['true'] } },
    });

    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { needed: 'operator' } });
    expect((await sched(home, ['show', 'call-viewer'])).code).toBe(3);
    expect(await audit()).toContainEqual(
      expect.objectContaining({ actor: 'token:looker (as token:looker)', action: 'access.denied' }),
    );
  });

  it('Given params the socket schema refuses, when called, then 400 names the field and nothing changes', async () => {
    const answer = await api.request('POST', '/v1/call/job.list', { token: operator, body: { limit: 5000 } });
    const unknownMethod = await api.request('POST', '/v1/call/job.explode', { token: operator, body: {} });

    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/limit/),
    });
    expect(unknownMethod.status).toBe(404);
  });

  it('Given requests that act on the daemon host itself or stream, when called, then there is no such route and the daemon runs on', async () => {
    for (const method of [
      'daemon.stop',
      'store.backup',
      'events.subscribe',
      'cluster.keys.install',
      'cluster.keys.use',
      'cluster.keys.remove',
    ]) {
      const answer = await api.request('POST', `/v1/call/${method}`, { token: operator, body: {} });
      expect({ method, status: answer.status, code: answer.body.error?.code }).toEqual({
        method,
        status: 404,
        code: 'VALIDATION_FAILED',
      });
    }
    expect((await sched(home, ['daemon', 'status'])).code).toBe(0);
  });

  it('Given the OpenAPI document, when read, then each call route is there with the socket schema as its body and an operationId of its own', async () => {
    const document = (await api.request('GET', '/v1/openapi.json')).body;
    const operation = document.paths['/v1/call/job.add'].post;

    expect(operation.operationId).toBe('call.job.add');
    expect(operation.requestBody.content['application/json'].schema.properties).toHaveProperty('input');
    expect(document.paths['/v1/jobs'].post.operationId).toBe('job.add');
    expect(Object.keys(document.paths)).not.toContain('/v1/call/daemon.stop');
    const ids = Object.values(document.paths).flatMap((path) =>
      Object.values(path as Record<string, { operationId: string }>).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });
});
