import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isFinalRunState } from '../../src/core/run.js';
import { askDaemon, runsOf, runWhere } from '../support/daemon-probe.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';
import { addTokenJob, SECRET } from '../support/secret-jobs.js';

interface Received {
  authorization: string | undefined;
  body: string;
}

/** A local HTTP server that records what each request carried and answers with credentials of its own. */
async function recordingServer(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ authorization: request.headers.authorization, body });
      response.writeHead(200, { 'set-cookie': `session=${SECRET}`, 'x-answer': '42' });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every file of the store: the database, its WAL and shared memory. */
function storeFiles(home: string): string[] {
  return fs
    .readdirSync(home)
    .filter((name) => name.startsWith('sched.db'))
    .map((name) => path.join(home, name));
}

function holdsSecret(file: string): boolean {
  return fs.readFileSync(file).includes(SECRET);
}

describe('secrets at rest', () => {
  const daemons = useDaemons(afterEach);

  it('Given a command job with a secret env value and an HTTP job with a secret header and payload, when they run, then each receives the real values and the secret is nowhere in the store, outputs, logs or metrics', async () => {
    const server = await recordingServer();
    try {
      const home = daemons.home();
      const daemon = await daemons.start(home, ['--metrics', '127.0.0.1:0']);
      const envFile = path.join(home, 'env-seen');
      const added = await addTokenJob(home, 'with-env', '1h', `printf %s "$TOKEN" > ${envFile}`);
      expect(added.code, added.stderr).toBe(0);
      const addedHttp = await sched(home, [
        'add',
        'with-header',
        '--every',
        '1h',
        '--http',
        server.url,
        '--method',
        'POST',
        '--header',
        `Authorization: Bearer ${SECRET}`,
        '--payload',
        `{"token":"${SECRET}"}`,
        '--json',
      ]);
      expect(addedHttp.code, addedHttp.stderr).toBe(0);

      const envRun = (await sched(home, ['trigger', 'with-env', '--json'])).json.id as string;
      const httpRun = (await sched(home, ['trigger', 'with-header', '--json'])).json.id as string;
      await runWhere(home, envRun, (run) => isFinalRunState(run.state));
      const answered = await runWhere(home, httpRun, (run) => isFinalRunState(run.state));

      expect(answered.state).toBe('succeeded');
      expect(fs.readFileSync(envFile, 'utf8')).toBe(SECRET);
      expect(server.received).toEqual([{ authorization: `Bearer ${SECRET}`, body: `{"token":"${SECRET}"}` }]);
      expect(answered.responseHeaders).toMatchObject({ 'set-cookie': '•••', 'x-answer': '42' });

      const outputs = {
        addJson: addedHttp.stdout,
        showJson: (await sched(home, ['show', 'with-env', '--json'])).stdout,
        showHttpJson: (await sched(home, ['show', 'with-header', '--json'])).stdout,
        lsJson: (await sched(home, ['ls', '--json'])).stdout,
        export: (await sched(home, ['export'])).stdout,
        audit: (await sched(home, ['audit', '--json'])).stdout,
        logs: (await sched(home, ['logs', httpRun, '--json'])).stdout,
        watch: (await sched(home, ['watch', '--since', '0', '--count', '4', '--json'])).stdout,
        metrics: await (await fetch(`http://${metricsAddress(daemon.output())}/metrics`)).text(),
        daemonLog: daemon.output(),
      };
      for (const [where, text] of Object.entries(outputs)) expect(text.includes(SECRET), where).toBe(false);
      expect(JSON.parse(outputs.showJson).job.target.env).toEqual({ TOKEN: '•••' });
      expect(JSON.parse(outputs.showHttpJson).job).toMatchObject({
        target: { headers: { Authorization: '•••' } },
        payload: '•••',
      });
      expect(outputs.watch).toContain('•••');
      for (const file of storeFiles(home)) expect(holdsSecret(file), file).toBe(false);
      expect(fs.statSync(path.join(home, 'secret.key')).mode & 0o777).toBe(0o600);
    } finally {
      await server.close();
    }
  });

  it('Given a job with a secret, when an admin asks show --reveal, then the real value comes back and the reveal is audited', async () => {
    const home = daemons.home();
    await daemons.start(home);
    await addTokenJob(home, 'reveal-me', '1h', 'true');

    const shown = await sched(home, ['show', 'reveal-me', '--reveal', '--json']);

    expect(shown.json.job.target.env).toEqual({ TOKEN: SECRET });
    const audit = (await sched(home, ['audit', '--json'])).json;
    expect(JSON.stringify(audit)).toContain('secrets.reveal');
  });

  it('Given a store with secrets, when a daemon starts on it with another key file or none, then it refuses at start with a clear error and changes nothing', async () => {
    const home = daemons.home();
    const daemon = await daemons.start(home);
    await addTokenJob(home, 'keyed', '1h', 'true');
    await daemon.stop();
    const keyFile = path.join(home, 'secret.key');
    const original = fs.readFileSync(keyFile);
    const otherHome = daemons.home();
    await (await daemons.start(otherHome)).stop();
    fs.copyFileSync(path.join(otherHome, 'secret.key'), keyFile);

    const wrongKey = await sched(home, ['daemon', 'run']);
    fs.rmSync(keyFile);
    const noKey = await sched(home, ['daemon', 'run']);

    expect(wrongKey.code).toBe(4);
    expect(wrongKey.stderr).toMatch(/sealed under key [0-9a-f]+, which .*secret\.key does not hold/);
    expect(noKey.code).toBe(4);
    expect(noKey.stderr).toMatch(/there is no key file at .*secret\.key/);
    expect(fs.existsSync(keyFile)).toBe(false);
    fs.writeFileSync(keyFile, original, { mode: 0o600 });
    await daemons.start(home);
    const revealed = await sched(home, ['show', 'keyed', '--reveal', '--json']);
    expect(revealed.json.job.target.env).toEqual({ TOKEN: SECRET });
  });

  it('Given a per-second job with a secret, when the key is rotated, then no instant is lost, runs keep the real value and only the new key is left', async () => {
    const home = daemons.home();
    await daemons.start(home);
    const seen = path.join(home, 'seen');
    await addTokenJob(home, 'ticker', '1s', `echo "$SCHED_SCHEDULED_FOR $TOKEN" >> ${seen}`);
    await waitFor(async () => (await runsOf(home, 'ticker', ['succeeded'])).length >= 3, 30_000);
    const keyBefore = JSON.parse(fs.readFileSync(path.join(home, 'secret.key'), 'utf8')).current as string;

    const rotated = await sched(home, ['key', 'rotate', '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotatedAt = Date.now();
    await waitFor(
      async () =>
        (await runsOf(home, 'ticker', ['succeeded'])).filter((run) => run.scheduledFor > rotatedAt + 1000)
          .length >= 3,
      30_000,
    );
    await sched(home, ['pause', 'ticker']);

    expect(rotated.json).toMatchObject({ retired: [keyBefore], resealed: 1 });
    const keyFile = JSON.parse(fs.readFileSync(path.join(home, 'secret.key'), 'utf8'));
    expect(Object.keys(keyFile.keys)).toEqual([rotated.json.key]);
    const runs = (await askDaemon(home, 'run.list', { jobRef: 'ticker', limit: 1000 })).items;
    const instants = runs.map((run) => run.scheduledFor).sort((a, b) => a - b);
    const gaps = instants.slice(1).filter((instant, index) => instant - instants[index]! !== 1000);
    expect(gaps).toEqual([]);
    await waitFor(async () => (await runsOf(home, 'ticker', ['running'])).length === 0);
    const lines = fs.readFileSync(seen, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const line of lines) expect(line.endsWith(` ${SECRET}`), line).toBe(true);
  });

  it('Given jobs exported without --reveal, when imported into another daemon, then the import is refused naming the masked values and nothing is created; with --reveal, the imported job runs with the real value', async () => {
    const home = daemons.home();
    await daemons.start(home);
    const seen = path.join(home, 'imported-env');
    await addTokenJob(home, 'portable', '1h', `printf %s "$TOKEN" > ${seen}`);
    const masked = (await sched(home, ['export'])).stdout;
    const revealed = (await sched(home, ['export', '--reveal'])).stdout;
    const target = daemons.home();
    await daemons.start(target);

    const refused = await sched(target, ['import', 'json', '-', '--yes'], { input: masked });
    const createdByRefused = (await askDaemon(target, 'job.list', {})).items;
    const sameHost = await sched(home, ['import', 'json', '-', '--yes', '--json'], { input: masked });
    const accepted = await sched(target, ['import', 'json', '-', '--yes'], { input: revealed });

    expect(masked).not.toContain(SECRET);
    expect(revealed).toContain(SECRET);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('job portable has masked secret values (env TOKEN)');
    expect(createdByRefused).toEqual([]);
    expect(sameHost.code, sameHost.stderr).toBe(0);
    expect(sameHost.json.jobs).toMatchObject([{ name: 'portable', action: 'unchanged' }]);
    expect(accepted.code, accepted.stderr).toBe(0);
    const run = (await sched(target, ['trigger', 'portable', '--json'])).json.id as string;
    await runWhere(target, run, (each) => isFinalRunState(each.state));
    expect(fs.readFileSync(seen, 'utf8')).toBe(SECRET);
  });
});

function metricsAddress(output: string): string {
  const started = output.split('\n').find((line) => line.includes('"daemon:started"'))!;
  return JSON.parse(started).metricsAddress as string;
}
