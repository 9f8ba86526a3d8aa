import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { apiAddress, createToken, startApiDaemon } from '../../support/api-harness.js';
import { sched, startDaemon, useDaemons } from '../../support/sched-harness.js';

describe('where the API refuses to listen', () => {
  const daemons = useDaemons(afterEach);

  it('Given plain HTTP asked for on 0.0.0.0, when the daemon starts, then it refuses to start and says plain HTTP is for loopback only', async () => {
    const home = daemons.home();

    const started = startDaemon(home, ['--api', '0.0.0.0:0'], { SCHED_API_ALLOW_PLAIN_HTTP: 'true' });

    await expect(started).rejects.toThrow(/Plain HTTP is allowed on a loopback address only/);
  });

  it('Given an API address without a certificate, when the daemon starts, then it refuses to start and names the flags', async () => {
    const home = daemons.home();

    await expect(startDaemon(home, ['--api', '127.0.0.1:0'])).rejects.toThrow(
      /--tls-cert FILE and --tls-key FILE/,
    );
  });

  it('Given a certificate file that is not PEM, when the daemon starts, then it refuses to start with one clear sentence and no stack', async () => {
    const home = daemons.home();
    const junk = path.join(home, 'junk.pem');
    fs.writeFileSync(junk, 'not a certificate\n');

    const started = startDaemon(home, ['--api', '127.0.0.1:0', '--tls-cert', junk, '--tls-key', junk]);

    await expect(started).rejects.toThrow(
      /The API's TLS certificate .*junk\.pem and key .*junk\.pem cannot be used/,
    );
    await expect(started).rejects.not.toThrow(/bug in sched/);
  });

  it('Given [api] in config.toml asking for plain HTTP on loopback, when a token reads over http, then it answers', async () => {
    const home = daemons.home();
    const config = path.join(home, 'config.toml');
    fs.writeFileSync(config, '[api]\nlisten = "127.0.0.1:0"\nallow_plain_http = true\n');
    const daemon = await daemons.start(home, [], { SCHED_CONFIG: config });
    const token = await createToken(home, ['--name', 'local', '--role', 'viewer']);

    const answer = await fetch(`http://${await apiAddress(daemon)}/v1/health`, {
      headers: { authorization: `Bearer ${token}` },
    });

    expect(answer.status).toBe(200);
    expect(daemon.output()).toContain('"tls":false');
  });
});

describe('tokens guessed from one address', () => {
  const daemons = useDaemons(afterEach);

  it('Given 20 bad tokens from one address, when a 21st request comes, then it is refused with 429 and Retry-After, and the 20 are audited by address', async () => {
    const { home, daemon, api } = await startApiDaemon(daemons);
    const good = await createToken(home, ['--name', 'good', '--role', 'viewer']);
    try {
      for (let guess = 0; guess < 20; guess++) {
        const refused = await api.request('GET', '/v1/jobs', { token: `sched_guess${guess}` });
        expect(refused.status).toBe(401);
      }

      const slowed = await api.request('GET', '/v1/jobs', { token: good });

      expect(slowed.status).toBe(429);
      expect(slowed.body.error.code).toBe('RATE_LIMITED');
      expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const audit = await sched(home, ['audit', '--json', '--limit', '100']);
      const failures = (audit.json.items as { actor: string; action: string }[]).filter(
        (entry) => entry.action === 'auth.failed',
      );
      expect(failures).toHaveLength(20);
      expect(new Set(failures.map((entry) => entry.actor))).toEqual(new Set(['address:127.0.0.1']));
      expect(audit.stdout).not.toContain('sched_guess');
      expect(daemon.output()).not.toContain('sched_guess');
    } finally {
      await api.close();
    }
  });
});
