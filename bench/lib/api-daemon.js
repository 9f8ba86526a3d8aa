import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { startDaemon } from './daemon.js';
import { freePort } from './free-port.js';
import { makeTempDir } from './processes.js';

const API_READY_TIMEOUT_MS = 30_000;

/**
 * A daemon (lib/daemon.js) that also serves the HTTPS API on a free loopback port, with a certificate made
 * by openssl in its home, and an admin token for it (admins are exempt from the request limits, as the
 * socket path's local admin is). Resolves once the API answers `/v1/health`: a quiet daemon counts as
 * ready when its socket answers, and the API is the last service it starts.
 */
export async function startApiDaemon({ label }) {
  const home = makeTempDir(label);
  const certFile = path.join(home, 'api.crt');
  const keyFile = path.join(home, 'api.key');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1'],
      ...['-keyout', keyFile, '-out', certFile, '-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  const port = await freePort();
  const daemon = await startDaemon({
    label,
    home,
    args: ['--api', `127.0.0.1:${port}`, '--tls-cert', certFile, '--tls-key', keyFile],
  });
  const client = await daemon.connect();
  const { token } = await client.call('token.create', {
    name: 'bench',
    role: 'admin',
    owner: os.userInfo().username,
  });
  client.close();
  const api = { origin: `https://127.0.0.1:${port}`, ca: fs.readFileSync(certFile, 'utf8'), token };
  await apiAnswers(api);
  return { daemon, api };
}

async function apiAnswers(api) {
  const dispatcher = new Agent({ connect: { ca: api.ca } });
  const deadline = Date.now() + API_READY_TIMEOUT_MS;
  try {
    for (;;) {
      try {
        const answer = await request(`${api.origin}/v1/health`, {
          headers: { authorization: `Bearer ${api.token}` },
          dispatcher,
        });
        await answer.body.dump();
        if (answer.statusCode === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the API did not answer within ${API_READY_TIMEOUT_MS} ms`);
      await sleep(50);
    }
  } finally {
    await dispatcher.close();
  }
}
