import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sched, useDaemons, type RunningDaemon } from '../support/sched-harness.js';

const TOKEN = 'c0ffee-metrics-token-5e3d9a';

/** The port the daemon's metrics listener got, from its `daemon:started` line. */
function metricsPort(daemon: RunningDaemon): string {
  const started = daemon
    .output()
    .split('\n')
    .find((line) => line.includes('"daemon:started"'))!;
  return (JSON.parse(started) as { metricsAddress: string }).metricsAddress.split(':').pop()!;
}

function writeToken(dir: string, mode: number): string {
  const file = path.join(dir, 'metrics.token');
  fs.writeFileSync(file, `${TOKEN}\n`, { mode });
  fs.chmodSync(file, mode);
  return file;
}

describe('the metrics and health listener bound beyond loopback', () => {
  const daemons = useDaemons(afterEach);

  it('asks every request for the bearer token in metrics_token_file, and never logs it', async () => {
    const home = daemons.home();
    const tokenFile = writeToken(home, 0o600);
    const daemon = await daemons.start(home, ['--metrics', '0.0.0.0:0', '--log-level', 'trace'], {
      SCHED_METRICS_TOKEN_FILE: tokenFile,
    });
    // Bound to every address; reached over loopback, so the test's traffic stays on this host.
    const base = `http://127.0.0.1:${metricsPort(daemon)}`;
    const get = (route: string, authorization?: string) =>
      fetch(`${base}${route}`, { headers: authorization ? { authorization } : {} });

    for (const route of ['/metrics', '/health', '/ready']) {
      const anonymous = await get(route);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      expect((await get(route, `Bearer ${TOKEN}x`)).status).toBe(401);
      expect((await get(route, `Bearer ${TOKEN.slice(0, -1)}`)).status).toBe(401);
      expect((await get(route, TOKEN)).status).toBe(401);
    }
    const metrics = await get('/metrics', `Bearer ${TOKEN}`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('sched_');
    const health = await get('/health', `bearer ${TOKEN}`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('UP');

    await daemon.stop();
    expect(daemon.output()).not.toContain(TOKEN);
  });

  it('refuses to start without metrics_token_file, before anything runs, and says what to do', async () => {
    const home = daemons.home();

    const result = await sched(home, ['daemon', 'run', '--metrics', '0.0.0.0:0'], { timeoutMs: 30_000 });

    expect(result.code).toBe(2);
    const output = `${result.stdout}${result.stderr}`;
    expect(output).toContain(
      'The metrics address 0.0.0.0:0 can be reached from beyond this host, and no metrics_token_file is set',
    );
    expect(output).toContain('Set metrics_token_file to a file (mode 0600)');
    expect(output).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(home, 'sched.db'))).toBe(false);
    expect(fs.existsSync(path.join(home, 'sched.sock'))).toBe(false);
  });

  it('refuses a token file that others can read', async () => {
    const home = daemons.home();
    const tokenFile = writeToken(home, 0o644);

    const result = await sched(home, ['daemon', 'run', '--metrics', '0.0.0.0:0'], {
      env: { SCHED_METRICS_TOKEN_FILE: tokenFile },
      timeoutMs: 30_000,
    });

    expect(result.code).toBe(2);
    expect(`${result.stdout}${result.stderr}`).toContain(
      `The metrics token file ${tokenFile} (metrics_token_file) is readable or writable by others (mode 0644)`,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
  });

  it('stays open on loopback when no token file is set', async () => {
    const daemon = await daemons.start(daemons.home(), ['--metrics', '127.0.0.1:0']);

    expect((await fetch(`http://127.0.0.1:${metricsPort(daemon)}/health`)).status).toBe(200);
  });
});
