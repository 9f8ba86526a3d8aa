import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, createToken, startApiDaemon, type ApiAnswer } from '../../support/api-harness.js';
import { sched, useDaemons, waitFor, type RunningDaemon } from '../../support/sched-harness.js';

// One daemon serves every test here (each uses jobs of its own names): starting one per test would
// spend most of the file's time in start-ups.
describe('the HTTPS API of a running daemon', () => {
  const daemons = useDaemons(afterAll);
  let home: string;
  let daemon: RunningDaemon;
  let api: ReturnType<typeof apiClient>;
  let operator: string;
  let viewer: string;
  let admin: string;

  beforeAll(async () => {
    ({ home, daemon, api } = await startApiDaemon(daemons));
    operator = await createToken(home, ['--name', 'ci', '--role', 'operator', '--owner', 'root']);
    viewer = await createToken(home, ['--name', 'dashboard', '--role', 'viewer']);
    admin = await createToken(home, ['--name', 'ops', '--role', 'admin', '--ttl', '1d']);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  const addJob = (name: string, input: Record<string, unknown> = {}, token = operator): Promise<ApiAnswer> =>
    api.request('POST', '/v1/jobs', {
      token,
      body: { input: { name, every: '1h', argv: ['true'], ...input } },
    });

  it('Given an operator token, when a job is added, listed, read, changed, paused, resumed and cancelled over HTTPS, then each answers as the socket would', async () => {
    const added = await addJob('api-crud', { labels: { team: 'web' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ name: 'api-crud', owner: 'root', version: 1 });

    const listed = await api.request('GET', '/v1/jobs?label=team=web&limit=10', { token: viewer });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((job: { name: string }) => job.name)).toEqual(['api-crud']);

    const read = await api.request('GET', '/v1/jobs/api-crud?upcoming=2', { token: viewer });
    expect(read.status).toBe(200);
    expect(read.body.upcoming).toHaveLength(2);

    const changed = await api.request('PATCH', '/v1/jobs/api-crud', {
      token: operator,
      headers: { 'if-match': '"1"' },
      body: { every: '2h' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ version: 2, schedule: { intervalMs: 7_200_000 } });

    expect((await api.request('POST', '/v1/jobs/api-crud/pause', { token: operator })).body.state).toBe(
      'paused',
    );
    expect((await api.request('POST', '/v1/jobs/api-crud/resume', { token: operator })).body.state).toBe(
      'active',
    );
    const cancelled = await api.request('DELETE', '/v1/jobs/api-crud', { token: operator });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
  });

  it('Given a job, when it is triggered and fails, then its run, logs, history, retry and occurrences are read over HTTPS', async () => {
    await addJob('api-runs', { argv: ['sh', '-c', 'echo hello from the api; exit 3'] });

    const triggered = await api.request('POST', '/v1/jobs/api-runs/trigger', { token: operator });
    expect(triggered.status).toBe(201);
    const runId = triggered.body.id as string;
    const finished = await waitFor(async () => {
      const run = await api.request('GET', `/v1/runs/${runId}`, { token: viewer });
      return run.body.state === 'failed' ? run : null;
    });
    expect(finished.status).toBe(200);

    const logs = await api.request('GET', `/v1/runs/${runId}/logs`, { token: viewer });
    expect(logs.body).toEqual({ id: runId, state: 'failed', stdout: 'hello from the api\n', stderr: '' });
    const history = await api.request('GET', '/v1/jobs/api-runs/history?limit=5', { token: viewer });
    expect(history.body.items.map((run: { id: string }) => run.id)).toEqual([runId]);
    const retried = await api.request('POST', `/v1/runs/${runId}/retry`, { token: operator });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ attempt: 2 });
    const occurrences = await api.request('GET', '/v1/jobs/api-runs/occurrences', { token: viewer });
    expect(occurrences.status).toBe(200);
    expect(occurrences.body).toHaveProperty('items');
  });

  it('Given a running run, when it is killed over HTTPS, then it ends killed', async () => {
    await addJob('api-kill', { argv: ['sleep', '60'] });
    const runId = (await api.request('POST', '/v1/jobs/api-kill/trigger', { token: operator })).body
      .id as string;
    await waitFor(
      async () => (await api.request('GET', `/v1/runs/${runId}`, { token: viewer })).body.state === 'running',
    );

    const killed = await api.request('POST', `/v1/runs/${runId}/kill`, { token: operator });

    expect(killed.status).toBe(200);
    const ended = await waitFor(async () => {
      const run = await api.request('GET', `/v1/runs/${runId}`, { token: viewer });
      return run.body.state !== 'running' ? run.body : null;
    });
    expect(ended.state).toBe('cancelled');
  });

  it('Given a viewer token, when the cluster and health are read, then both answer', async () => {
    const cluster = await api.request('GET', '/v1/cluster', { token: viewer });
    const health = await api.request('GET', '/v1/health', { token: viewer });

    expect(cluster).toMatchObject({ status: 200, body: { mode: 'single' } });
    expect(health).toMatchObject({ status: 200, body: { pid: daemon.pid } });
  });

  it('Given an event stream, when jobs are added, then they arrive as Server-Sent Events, and Last-Event-ID resumes after the last one read', async () => {
    const first = await api.events('/v1/events?types=job:created', viewer);
    expect(first.status).toBe(200);
    expect(first.contentType).toMatch(/^text\/event-stream/);
    await addJob('api-sse-1');
    const seen = await first.next((event) => event.data.data?.name === 'api-sse-1');
    first.close();
    expect(seen).toMatchObject({ type: 'job:created', id: expect.stringMatching(/^\d+$/) });

    await addJob('api-sse-2');
    const resumed = await api.events('/v1/events?types=job:created', viewer, { 'last-event-id': seen.id! });
    const replayed = await resumed.next(() => true);
    resumed.close();

    expect(replayed.data.data.name).toBe('api-sse-2');
  });

  it('Given a job at version 2, when it is patched with If-Match 1, then 412 says the version is stale and nothing changes', async () => {
    await addJob('api-stale');
    await api.request('PATCH', '/v1/jobs/api-stale', { token: operator, body: { every: '3h' } });

    const stale = await api.request('PATCH', '/v1/jobs/api-stale', {
      token: operator,
      headers: { 'if-match': '1' },
      body: { every: '5h' },
    });

    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('VERSION_CONFLICT');
    const job = await api.request('GET', '/v1/jobs/api-stale', { token: viewer });
    expect(job.body.job).toMatchObject({ version: 2, schedule: { intervalMs: 10_800_000 } });
  });

  it('Given the same Idempotency-Key, when a job is posted twice, then one job exists and both answers name it', async () => {
    const post = () =>
      api.request('POST', '/v1/jobs', {
        token: operator,
        headers: { 'idempotency-key': 'deploy-42' },
        body: { input: { name: 'api-once', every: '1h', argv: ['true'] } },
      });

    const first = await post();
    const second = await post();

    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    const listed = await api.request('GET', '/v1/jobs?limit=1000', { token: viewer });
    expect(listed.body.items.filter((job: { name: string }) => job.name === 'api-once')).toHaveLength(1);
  });

  it('Given payloads either side of the 1 MiB limit, when they are posted over HTTPS, then the one within is stored as over the socket and the one over is refused naming the payload limit, nothing stored', async () => {
    // The payload is JSON text: a string of n letters is n + 2 bytes with its quotes.
    const jsonString = (letters: number) => JSON.stringify('x'.repeat(letters));
    const within = await addJob('api-large-payload', { payload: jsonString(1024 * 1024 - 2) });
    const over = await addJob('api-too-large-payload', { payload: jsonString(1024 * 1024) });

    expect(within.body).toMatchObject({ name: 'api-large-payload' });
    expect(within.status).toBe(201);
    expect(over.status).toBe(413);
    expect(over.body.error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringMatching(/payload/),
    });
    const names = (await api.request('GET', '/v1/jobs?limit=1000', { token: viewer })).body.items.map(
      (job: { name: string }) => job.name,
    );
    expect(names).toContain('api-large-payload');
    expect(names).not.toContain('api-too-large-payload');
  });

  it('Given each kind of refusal, when it happens over HTTPS, then the envelope carries its code with the status of its class', async () => {
    await addJob('api-taken');
    const cases: [string, Promise<ApiAnswer>, number, string][] = [
      [
        'bad input',
        api.request('POST', '/v1/jobs', { token: operator, body: { input: { every: '1h' } } }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'bad schedule',
        addJob('api-bad-cron', { every: undefined, cron: 'not a cron' }),
        400,
        'INVALID_SCHEDULE',
      ],
      [
        'malformed JSON',
        api.request('POST', '/v1/jobs', {
          token: operator,
          rawBody: '{"input":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'VALIDATION_FAILED',
      ],
      ['no token', api.request('GET', '/v1/jobs', { token: null }), 401, 'UNAUTHENTICATED'],
      ['a viewer adding', addJob('api-viewer', {}, viewer), 403, 'UNAUTHORIZED'],
      ['an unknown job', api.request('GET', '/v1/jobs/no-such-job', { token: viewer }), 404, 'JOB_NOT_FOUND'],
      ['an unknown run', api.request('GET', '/v1/runs/0000', { token: viewer }), 404, 'RUN_NOT_FOUND'],
      ['an unknown route', api.request('GET', '/v1/nothing', { token: viewer }), 404, 'VALIDATION_FAILED'],
      ['a name taken', addJob('api-taken'), 409, 'NAME_TAKEN'],
      [
        'a body over 2 MiB',
        api.request('POST', '/v1/jobs', {
          token: operator,
          rawBody: JSON.stringify({ input: { name: 'x'.repeat(2_200_000) } }),
          headers: { 'content-type': 'application/json' },
        }),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
    ];

    for (const [what, answer, status, code] of cases) {
      const { status: got, body } = await answer;
      expect({ what, status: got, code: body?.error?.code }).toEqual({ what, status, code });
      expect(typeof body.error.message).toBe('string');
    }
  });

  it('Given an admin token, when the admin-only audit log is read through the socket, then the API calls are audited under the token names', async () => {
    await addJob('api-audited');
    await addJob('api-refused', {}, viewer);

    const audit = await sched(home, ['audit', '--json', '--limit', '200']);

    const entries = audit.json.items as { actor: string; action: string; after: { name?: string } | null }[];
    expect(entries).toContainEqual(
      expect.objectContaining({
        actor: 'token:ci (as root)',
        action: 'job.create',
        after: expect.objectContaining({ name: 'api-audited' }),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ actor: 'token:dashboard (as token:dashboard)', action: 'access.denied' }),
    );
    expect(admin).toMatch(/^sched_[A-Za-z0-9_-]{43}$/);
  });

  it('Given a token revoked, when it is used, then it is refused with 401 and the others still work', async () => {
    const doomed = await createToken(home, ['--name', 'doomed', '--role', 'viewer']);
    expect((await api.request('GET', '/v1/jobs', { token: doomed })).status).toBe(200);

    expect((await sched(home, ['token', 'revoke', 'doomed'])).code).toBe(0);

    const refused = await api.request('GET', '/v1/jobs', { token: doomed });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'UNAUTHENTICATED', details: { reason: 'revoked' } });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect((await api.request('GET', '/v1/jobs', { token: viewer })).status).toBe(200);
  });

  it('Given a token past its expiry, when it is used, then it is refused with 401', async () => {
    const stale = await createToken(home, ['--name', 'stale', '--role', 'viewer', '--ttl', '1h']);
    // An hour is too long to wait: the test moves its expiry into the past in the store itself.
    const db = new Database(path.join(home, 'sched.db'));
    db.prepare("UPDATE api_tokens SET expires_at = 1 WHERE name = 'stale'").run();
    db.close();

    const refused = await api.request('GET', '/v1/jobs', { token: stale });

    expect(refused.status).toBe(401);
    expect(refused.body.error.details).toEqual({ reason: 'expired' });
  });

  it('Given tokens created and used, when the daemon log, `token ls --json` and `audit --json` are read, then no token appears in them', async () => {
    const secret = await createToken(home, ['--name', 'secretive', '--role', 'viewer']);
    await api.request('GET', '/v1/jobs', { token: secret });

    const listed = await sched(home, ['token', 'ls', '--json']);
    const audit = await sched(home, ['audit', '--json', '--limit', '500']);

    expect(listed.json.items.map((token: { name: string }) => token.name)).toContain('secretive');
    expect(
      listed.json.items.find((token: { name: string }) => token.name === 'secretive').lastUsedAt,
    ).toEqual(expect.any(Number));
    for (const token of [secret, operator, viewer, admin]) {
      expect(daemon.output()).not.toContain(token);
      expect(listed.stdout).not.toContain(token);
      expect(audit.stdout).not.toContain(token);
    }
    expect(listed.stdout).not.toMatch(/"hash"/);
  });
});
