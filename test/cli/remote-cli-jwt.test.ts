import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedKey, serveJwks, signJwt, startOidcDaemon, type JwksServer } from '../support/oidc-issuer.js';
import { sched, useDaemons, type CliResult } from '../support/sched-harness.js';

// One daemon whose identity provider is up, and one whose provider is gone, serve every test here.
describe('the CLI against a remote daemon with a JWT from its OIDC issuer (--remote, SCHED_TOKEN)', () => {
  const daemons = useDaemons(afterAll);
  let signingKey: CryptoKey;
  let idp: JwksServer;
  let url: string;
  let certFile: string;
  let localHome: string;
  let downUrl: string;
  let downCertFile: string;
  let downJwksUrl: string;
  /** SCHED_HOME of the remote commands: an empty folder, so a command that went to a socket would fail. */
  let elsewhere: string;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    signingKey = pair.privateKey;
    idp = await serveJwks([await listedKey(pair.publicKey)]);
    ({ url, certFile, home: localHome } = await startOidcDaemon(daemons, idp.url));
    const gone = await serveJwks([]);
    await gone.close();
    downJwksUrl = gone.url;
    ({ url: downUrl, certFile: downCertFile } = await startOidcDaemon(daemons, gone.url));
    elsewhere = daemons.home();
  }, 90_000);

  afterAll(async () => {
    await idp?.close();
  });

  /** `sched <command> --remote URL --ca-file CA ...` with the JWT in SCHED_TOKEN (empty: none). */
  const remote = (jwt: string, [command, ...rest]: string[], at = { url, certFile }): Promise<CliResult> =>
    sched(elsewhere, [command!, '--remote', at.url, '--ca-file', at.certFile, ...rest], {
      env: { SCHED_TOKEN: jwt, TZ: 'UTC' },
    });

  it('Given an operator JWT, when it adds a job remotely, then the job is the subject’s and ls --json lists it, with the JWT in SCHED_TOKEN or in a --token-file', async () => {
    const operator = await signJwt(signingKey, { roles: ['operator'] }, { subject: 'deployer' });
    const tokenFile = path.join(elsewhere, 'jwt');
    fs.writeFileSync(tokenFile, `${operator}\n`, { mode: 0o600 });

    const added = await remote(operator, ['add', 'jwt-remote', '--every', '1h', '--', 'true']);
    const listed = await remote('', ['ls', '--json', '--token-file', tokenFile]);

    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Added job jwt-remote \(id [0-9a-f-]+\), next run /);
    expect(listed.code).toBe(0);
    expect(listed.json.items).toContainEqual(
      expect.objectContaining({ name: 'jwt-remote', owner: 'deployer' }),
    );
    expect((await sched(localHome, ['show', 'jwt-remote', '--json'])).json.job.owner).toBe('deployer');
  });

  it('Given a viewer JWT, when it adds a job remotely, then it exits 5 saying the operator role is needed, and nothing is stored', async () => {
    const viewer = await signJwt(signingKey, { roles: ['viewer'] }, { subject: 'wallboard' });

    const added = await remote(viewer, ['add', 'jwt-viewer', '--every', '1h', '--', 'true']);
    const listed = await remote(viewer, ['ls', '--json']);

    expect(added.code).toBe(5);
    expect(added.stderr).toMatch(/^Error: .*needs the operator role/);
    expect(listed.code).toBe(0);
    expect(listed.json.items.map((job: { name: string }) => job.name)).not.toContain('jwt-viewer');
  });

  it('Given an expired JWT, when a command runs remotely, then it exits 5 saying the JWT was refused as expired', async () => {
    const expired = await signJwt(
      signingKey,
      { roles: ['operator'] },
      { expiresAt: Math.floor(Date.now() / 1000) - 120 },
    );

    const listed = await remote(expired, ['ls']);
    const json = await remote(expired, ['ls', '--json']);

    expect(listed.code).toBe(5);
    expect(listed.stderr).toMatch(/^Error: The JWT was refused: expired\.\nHint: /);
    expect(json.code).toBe(5);
    expect(json.json.error).toMatchObject({ code: 'UNAUTHENTICATED', details: { reason: 'expired' } });
    expect(listed.stderr + json.stdout).not.toContain(expired);
  });

  it('Given the daemon’s identity provider out of reach, when a command runs remotely with a JWT, then it exits 7 saying the provider’s keys cannot be fetched', async () => {
    const operator = await signJwt(signingKey, { roles: ['operator'] });

    const down = { url: downUrl, certFile: downCertFile };

    const listed = await remote(operator, ['ls'], down);
    const json = await remote(operator, ['ls', '--json'], down);

    expect(listed.code).toBe(7);
    expect(listed.stderr).toMatch(
      new RegExp(
        `^Error: The identity provider's keys cannot be fetched from ${escape(downJwksUrl)} \\(.*ECONNREFUSED.*\\): JWTs cannot be checked now\\.\\nHint: Try again in \\d+ s; API tokens`,
      ),
    );
    expect(json.code).toBe(7);
    expect(json.json.error).toMatchObject({
      code: 'IDENTITY_PROVIDER_UNAVAILABLE',
      details: { jwksUrl: downJwksUrl },
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
