import { spawn } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, sched, sleep, useDaemons, waitFor } from '../support/sched-harness.js';
import { shareKeyFile } from './support/federation-nodes.js';
import { startEmbeddedPostgres, type RunningServer } from '../support/postgres-server.js';
import { childEnv } from '../support/child-env.js';

async function count(url: string, query: string, params: unknown[] = []): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>(query, params)).rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function jobsWithoutRunsSince(url: string, since: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; owner: string | null }>(
      `SELECT j.name, (SELECT max(r.node) FROM runs r WHERE r.job_id = j.id) AS owner FROM jobs j
        WHERE j.name LIKE 'beat-%' AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id AND r.created_at > $1)`,
      [since],
    );
    return rows.map((row) => `${row.name} (last ran on ${row.owner ?? 'no node'})`);
  } finally {
    await client.end();
  }
}

/**
 * Busy loops, one a core, each ending by itself after `ms`: a daemon on a loaded host holds its
 * connections longer between statements, which is when a restart used to end it.
 */
function startCpuHogs(count: number, ms: number): { stop: () => void } {
  const hogs = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end);`], {
      stdio: 'ignore',
      env: childEnv(),
    }),
  );
  return {
    stop: () => {
      for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) process.kill(hog.pid!);
    },
  };
}

describe('PostgreSQL restarted under running daemons', () => {
  const { home, start } = useDaemons(afterEach);
  let hogs: { stop: () => void } | null = null;
  afterEach(() => {
    hogs?.stop();
    hogs = null;
  });
  // A server of this file's own: restarting the run's shared one would disturb every other file.
  let server: RunningServer;
  let target: http.Server;
  let targetUrl: string;

  beforeAll(async () => {
    server = await startEmbeddedPostgres();
    target = http.createServer((request, response) => {
      request.resume();
      response.statusCode = 204;
      response.end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as net.AddressInfo).port}/`;
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => target.close(resolve));
    await server?.stop();
  });

  it('the daemons reconnect and go on, and nothing acknowledged is lost', async () => {
    const args = ['--store', server.url, '--heartbeat-interval', '500ms', '--lease-ttl', '3s'];
    const homes = [home(), home()];
    const first = await start(homes[0]!, args);
    shareKeyFile(homes[0]!, homes[1]!);
    const daemons = [first, await start(homes[1]!, args)];
    for (let i = 0; i < 20; i++) {
      const added = await sched(homes[i % 2]!, ['add', `beat-${i}`, '--every', '1s', '--http', targetUrl]);
      expect(added.code, added.stderr).toBe(0);
    }
    await sched(homes[0]!, ['add', 'slow', '--every', '24h', '--shell', 'sleep 4']);
    await sleep(3_000);
    const slow = await sched(homes[0]!, ['trigger', 'slow', '--json']);
    expect(slow.code, slow.stderr).toBe(0);

    const runsBefore = await count(server.url, 'SELECT count(*)::int AS n FROM runs');
    expect(runsBefore).toBeGreaterThan(20);
    hogs = startCpuHogs(2, 30_000);
    await server.restart(2_000);
    const restartedAt = Date.now();
    await sleep(1_000);
    hogs.stop();

    // Both daemons survived the outage and fire again after it; a dead one's log says why.
    const dead = daemons.filter((daemon) => !isAlive(daemon.pid));
    expect(dead.map((daemon) => daemon.output().slice(-8_000)).join('\n----\n')).toBe('');
    const firedAgain = await waitFor(
      async () =>
        (await count(server.url, 'SELECT count(DISTINCT job_id)::int AS n FROM runs WHERE created_at > $1', [
          restartedAt + 1_000,
        ])) === 20,
      30_000,
      500,
    ).catch(() => false);
    if (!firedAgain) {
      const silent = await jobsWithoutRunsSince(server.url, restartedAt + 1_000);
      const logs = daemons.map((daemon) => daemon.output().slice(-6_000)).join('\n----\n');
      expect.fail(`jobs that did not fire again within 30 s of the restart: ${silent.join(', ')}\n${logs}`);
    }
    expect(await count(server.url, 'SELECT count(*)::int AS n FROM runs')).toBeGreaterThan(runsBefore);
    expect(await count(server.url, `SELECT count(*)::int AS n FROM jobs WHERE state = 'active'`)).toBe(21);
    // The run that ended during the outage has its outcome, recorded once the database was back.
    let lastSeen: unknown = null;
    const slowEnded = await waitFor(async () => {
      const history = await sched(homes[1]!, ['history', 'slow', '--json']);
      lastSeen = history.json?.items ?? history.stderr;
      return history.json?.items?.[0]?.state === 'succeeded' ? true : null;
    }, 30_000).catch(() => false);
    if (!slowEnded) {
      const logs = daemons.map((daemon) => daemon.output().slice(-8_000)).join('\n----\n');
      expect.fail(`the slow run's history 30 s after the restart: ${JSON.stringify(lastSeen)}\n${logs}`);
    }
    // Both sockets still answer and both nodes still see every job.
    for (const dir of homes) {
      const listed = await sched(dir, ['ls', '--limit', '100', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.json.items).toHaveLength(21);
    }
    const added = await sched(homes[1]!, ['add', 'after-restart', '--every', '1h', '--http', targetUrl]);
    expect(added.code, added.stderr).toBe(0);
  }, 180_000);
});
