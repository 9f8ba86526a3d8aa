import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, createToken, startApiDaemon } from '../support/api-harness.js';
import { sched, schedBin, useDaemons, waitFor } from '../support/sched-harness.js';
import { Tmux } from '../support/tmux.js';

const row = (screen: string, name: string) =>
  screen.split('\n').find((line) => line.slice(2).startsWith(`${name} `)) ?? '';

describe('sched dash --remote in a real terminal (tmux)', () => {
  const daemons = useDaemons(afterAll);
  const tmux = new Tmux();
  let home: string;
  let url: string;
  let certFile: string;
  let api: ReturnType<typeof apiClient>;
  let token: string;
  let tokenFile: string;

  beforeAll(async () => {
    ({ home, url, certFile, api } = await startApiDaemon(daemons));
    token = await createToken(home, ['--name', 'dash', '--role', 'operator', '--owner', 'root']);
    // The dashboard's own home has no daemon: only the API can answer it.
    const elsewhere = daemons.home();
    tokenFile = path.join(elsewhere, 'token');
    fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    await tmux.start(100, 30, { SCHED_HOME: elsewhere, NO_COLOR: '1', PS1: '$ ', TZ: 'UTC' });
  }, 60_000);

  afterAll(async () => {
    await tmux.stop();
    await api?.close();
  });

  it('given a daemon reached over HTTPS, when sched dash --remote runs, then it follows a job added through the API, its run, and p pauses it there', async () => {
    await tmux.type(
      `node ${schedBin} dash --remote ${url} --token-file ${tokenFile} --ca-file ${certFile}; echo "dash exited $?"`,
    );
    await tmux.screenWhere((s) => s.includes('● live'), 'the live dashboard');

    // When a job is added through the API, then it appears
    const added = await api.request('POST', '/v1/jobs', {
      token,
      body: { input: { name: 'api-added', every: '1h', argv: ['sh', '-c', 'sleep 1'] } },
    });
    expect(added.status).toBe(201);
    let screen = await tmux.screenWhere(
      (s) => row(s, 'api-added').includes('every 1h'),
      'the job added through the API',
    );
    expect(screen).toContain('1 jobs: 1 active, 0 paused');

    // When it is triggered through the API, then its run is seen to end
    expect((await api.request('POST', '/v1/jobs/api-added/trigger', { token })).status).toBe(201);
    await tmux.screenWhere((s) => row(s, 'api-added').includes('✓'), 'the run succeeded in its row');

    // When p is pressed on it, then the remote daemon has it paused
    await tmux.keys('p');
    await waitFor(
      async () => (await sched(home, ['show', 'api-added', '--json'])).json?.job?.state === 'paused',
    );
    screen = await tmux.screenWhere((s) => row(s, 'api-added').includes('‖ paused'), 'api-added paused');
    console.log(`\n── sched dash --remote at 100x30 (tmux capture-pane) ──\n${screen}\n── end of capture ──`);

    // When q is pressed, then it exits 0 and the token was never shown
    await tmux.keys('q');
    // Under load the shell may draw its prompt before the echo's line: `$ dash exited 0`.
    screen = await tmux.screenWhere((s) => /^(\$ )?dash exited \d+/m.test(s), 'the shell after q');
    expect(screen).toContain('dash exited 0');
    expect(screen).not.toContain(token);
  }, 120_000);
});
