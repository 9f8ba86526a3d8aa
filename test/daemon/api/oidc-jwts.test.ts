import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, apiDaemonArgs, createToken, makeCertificate } from '../../support/api-harness.js';
import {
  AUDIENCE,
  ISSUER,
  listedKey,
  serveJwks,
  signJwt,
  startOidcDaemon,
  type JwksServer,
  type Signing,
} from '../../support/oidc-issuer.js';
import { sched, sleep, startDaemon, useDaemons, type RunningDaemon } from '../../support/sched-harness.js';
import { JWKS_TIMINGS } from '../../../src/daemon/access/issuer-keys.js';

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('JWTs from an OIDC issuer on the HTTPS API', () => {
  const daemons = useDaemons(afterAll);
  let signingKey: CryptoKey;
  let otherKey: CryptoKey;
  let jwks: JwksServer;
  let home: string;
  let daemon: RunningDaemon;
  let api: ReturnType<typeof apiClient>;

  const jwt = (
    claims: Record<string, unknown>,
    signing: Signing & { key?: CryptoKey | Uint8Array } = {},
  ): Promise<string> => signJwt(signing.key ?? signingKey, claims, signing);

  const addJob = (name: string, token: string) =>
    api.request('POST', '/v1/jobs', { token, body: { input: { name, every: '1h', argv: ['true'] } } });

  const auditEntries = async () => {
    const audit = await sched(home, ['audit', '--json', '--limit', '500']);
    return audit.json.items as { actor: string; action: string; after: Record<string, unknown> | null }[];
  };

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    signingKey = pair.privateKey;
    ({ privateKey: otherKey } = await generateKeyPair('ES256'));
    jwks = await serveJwks([await listedKey(pair.publicKey)]);
    ({ home, daemon, api } = await startOidcDaemon(daemons, jwks.url));
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await jwks?.close();
  });

  it('Given an operator JWT, when it adds a job, then it is created for the subject and the audit names the JWT caller', async () => {
    const token = await jwt({ roles: ['staff', 'operator'] });

    const added = await addJob('jwt-added', token);

    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ name: 'jwt-added', owner: 'ci-bot' });
    expect(await auditEntries()).toContainEqual(
      expect.objectContaining({
        actor: `jwt:${ISSUER}#ci-bot (as ci-bot)`,
        action: 'job.create',
        after: expect.objectContaining({ name: 'jwt-added' }),
      }),
    );
  });

  it('Given a viewer JWT, when it reads and then adds a job, then it reads and is refused 403', async () => {
    const token = await jwt({ roles: 'viewer' }, { subject: 'dashboard' });

    expect((await api.request('GET', '/v1/jobs', { token })).status).toBe(200);
    const refused = await addJob('jwt-viewer', token);

    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
  });

  it('Given an API token beside the issuer, when it is used, then it still goes the token way', async () => {
    const token = await createToken(home, ['--name', 'beside', '--role', 'viewer']);

    expect((await api.request('GET', '/v1/jobs', { token })).status).toBe(200);
  });

  it('Given JWTs expired, of another issuer or audience, signed by another key, unsigned, HMAC-signed or with no sched role, when used, then each is refused 401 and audited by reason, never showing or logging the JWT', async () => {
    const header = base64url({ alg: 'none', typ: 'JWT' });
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'mallory', roles: ['admin'], exp: now + 600 };
    const cases: [string, string, string][] = [
      ['expired', await jwt({ roles: ['admin'] }, { expiresAt: now - 60 }), 'expired'],
      ['another issuer', await jwt({ roles: ['admin'] }, { issuer: 'https://evil.test' }), 'invalid-claims'],
      ['another audience', await jwt({ roles: ['admin'] }, { audience: 'other-api' }), 'invalid-claims'],
      ['another key', await jwt({ roles: ['admin'] }, { key: otherKey }), 'bad-signature'],
      ['an unknown key id', await jwt({ roles: ['admin'] }, { key: otherKey, kid: 'k9' }), 'unknown-key'],
      ['alg none', `${header}.${base64url(claims)}.`, 'algorithm-not-allowed'],
      [
        'HS256',
        await jwt({ roles: ['admin'] }, { alg: 'HS256', key: new TextEncoder().encode('x'.repeat(32)) }),
        'algorithm-not-allowed',
      ],
      ['no sched role', await jwt({ roles: ['staff'] }), 'no-role'],
      ['root as owner', await jwt({ roles: ['operator'] }, { subject: 'root' }), 'privileged-owner'],
      [
        'the daemon’s own user as owner',
        await jwt({ roles: ['operator'] }, { subject: os.userInfo().username }),
        'privileged-owner',
      ],
    ];

    for (const [what, token] of cases) {
      const answer = await api.request('GET', '/v1/jobs', { token });
      expect({ what, status: answer.status, code: answer.body.error?.code }).toEqual({
        what,
        status: 401,
        code: 'UNAUTHENTICATED',
      });
      expect(JSON.stringify(answer.body)).not.toContain(token);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    }
    const failed = (await auditEntries()).filter((entry) => entry.action === 'auth.failed');
    expect(failed.map((entry) => entry.after?.['reason']).sort()).toEqual(
      cases.map(([, , reason]) => reason).sort(),
    );
    expect(failed.every((entry) => entry.actor.startsWith('address:'))).toBe(true);
    const audit = JSON.stringify(failed);
    for (const [, token] of cases) {
      expect(audit).not.toContain(token);
      expect(daemon.output()).not.toContain(token);
    }
  });
});

describe('an OIDC issuer out of reach or half configured', () => {
  const daemons = useDaemons(afterEach);

  it('Given the JWKS server down, when a JWT is sent, then it is answered 503 IDENTITY_PROVIDER_UNAVAILABLE and the daemon serves tokens on', async () => {
    const gone = await serveJwks([]);
    await gone.close();
    const { home, api } = await startOidcDaemon(daemons, gone.url);
    const { privateKey } = await generateKeyPair('ES256');
    const token = await signJwt(privateKey, { roles: ['operator'] });

    try {
      const answer = await api.request('GET', '/v1/jobs', { token });

      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('IDENTITY_PROVIDER_UNAVAILABLE');
      expect(answer.body.error.message).toContain(gone.url);
      const apiToken = await createToken(home, ['--name', 'still', '--role', 'viewer']);
      expect((await api.request('GET', '/v1/jobs', { token: apiToken })).status).toBe(200);
      expect((await sched(home, ['ls', '--json'])).code).toBe(0);
    } finally {
      await api.close();
    }
  });

  it('Given the identity provider answering 500, when JWTs keep coming, then each is answered 503 at once, one fetch each cooldown; once it is back, JWTs arriving together after the cooldown work again on one fetch', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const idp = await serveJwks([await listedKey(publicKey)]);
    idp.answer('failure');
    const { api } = await startOidcDaemon(daemons, idp.url);
    const token = await signJwt(privateKey, { roles: ['operator'] });
    const list = () => api.request('GET', '/v1/jobs', { token });

    try {
      const together = await Promise.all(Array.from({ length: 10 }, list));
      const inTurn = [];
      for (let i = 0; i < 10; i += 1) inTurn.push(await list());
      const refused = [...together, ...inTurn];

      expect(refused.map((answer) => answer.status)).toEqual(Array(20).fill(503));
      expect(refused.map((answer) => answer.body.error.code)).toEqual(
        Array(20).fill('IDENTITY_PROVIDER_UNAVAILABLE'),
      );
      expect(Number(inTurn[9]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // One fetch, or two should the 20 requests have outlasted a cooldown on a loaded machine.
      expect(idp.fetches()).toBeGreaterThanOrEqual(1);
      expect(idp.fetches()).toBeLessThanOrEqual(2);

      idp.answer('keys');
      const fetchesBefore = idp.fetches();
      await sleep(JWKS_TIMINGS.failureCooldownMs + 1_000);
      const added = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          api.request('POST', '/v1/jobs', {
            token,
            body: { input: { name: `after-outage-${i}`, every: '1h', argv: ['true'] } },
          }),
        ),
      );

      expect(added.map((answer) => answer.status)).toEqual(Array(10).fill(201));
      expect(idp.fetches()).toBe(fetchesBefore + 1);

      idp.answer('failure');
      expect((await list()).status).toBe(200);
      expect(idp.fetches()).toBe(fetchesBefore + 1);
    } finally {
      await api.close();
      await idp.close();
    }
  }, 90_000);

  it('Given an issuer without an audience, when the daemon starts, then it refuses to start naming the key missing', async () => {
    const home = daemons.home();
    const config = path.join(home, 'config.toml');
    fs.writeFileSync(
      config,
      '[api]\njwks_url = "https://id.sched.test/jwks"\nissuer = "https://id.sched.test"\n',
    );

    await expect(
      startDaemon(home, apiDaemonArgs(makeCertificate(home)), { SCHED_CONFIG: config }),
    ).rejects.toThrow(/\[api\] audience is missing/);
  });
});
