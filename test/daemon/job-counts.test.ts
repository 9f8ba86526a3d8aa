import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonClient } from '../../src/client/daemon-client.js';
import { useDaemons, waitFor } from '../support/sched-harness.js';

/** count(*) of the live states' jobs in the daemon's database, read by a connection of its own. */
function countedRows(database: string): { active: number; paused: number } {
  const reader = new Database(database, { readonly: true });
  try {
    const count = reader.prepare('SELECT count(*) FROM jobs WHERE state = ?').pluck();
    return { active: count.get('active') as number, paused: count.get('paused') as number };
  } finally {
    reader.close();
  }
}

/** The one-shot job has fired, its run ended, and it is done: no next instant. */
function isDone(database: string, name: string): boolean {
  const reader = new Database(database, { readonly: true });
  try {
    const job = reader
      .prepare(`SELECT id, next_run_at FROM jobs WHERE name = ? AND deleted_at IS NULL`)
      .get(name) as { id: string; next_run_at: number | null } | undefined;
    if (!job || job.next_run_at !== null) return false;
    const ended = reader
      .prepare(`SELECT count(*) FROM runs WHERE job_id = ? AND finished_at IS NOT NULL`)
      .pluck()
      .get(job.id) as number;
    return ended > 0;
  } finally {
    reader.close();
  }
}

describe("daemon.status's job counts, on a SQLite store", () => {
  const daemons = useDaemons(afterEach);
  const clients: DaemonClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  async function connect(home: string): Promise<DaemonClient> {
    const client = await DaemonClient.connect(path.join(home, 'sched.sock'));
    clients.push(client);
    return client;
  }

  it('Given jobs added, paused, cancelled and a one-shot job that fired and is done, when the status is asked, before and after a restart, then it counts the jobs as their rows are', async () => {
    const home = daemons.home();
    const database = path.join(home, 'sched.db');
    const daemon = await daemons.start(home);
    const client = await connect(home);
    for (const name of ['kept', 'held', 'dropped'])
      await client.call('job.add', { input: { name, every: '1h', argv: ['true'] } });
    await client.call('job.pause', { ref: 'held' });
    await client.call('job.cancel', { ref: 'dropped' });
    const at = new Date(Date.now() + 1_500).toISOString();
    await client.call('job.add', { input: { name: 'once', at, argv: ['true'] } });

    await waitFor(async () => isDone(database, 'once'), 30_000, 100);

    const rows = countedRows(database);
    expect(rows).toEqual({ active: 2, paused: 1 });
    expect((await client.call('daemon.status', {})).jobs).toEqual(rows);

    await daemon.stop('SIGTERM');
    await daemons.start(home);
    expect((await (await connect(home)).call('daemon.status', {})).jobs).toEqual(rows);
  });
});
