import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { isFinalRunState } from '../../src/core/run.js';
import { runWhere } from '../support/daemon-probe.js';
import { sched, useDaemons } from '../support/sched-harness.js';
import { usePostgres } from '../support/postgres.js';
import { addTokenJob, SECRET } from '../support/secret-jobs.js';
import { CLUSTER_ARGS, shareKeyFile } from './support/federation-nodes.js';

const postgres = usePostgres();

/** The tables of the database whose rows, as text, hold `needle` anywhere. */
async function tablesHolding(url: string, needle: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
    );
    const holding: string[] = [];
    for (const { name } of tables) {
      const table = client.escapeIdentifier(name);
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE $1`,
        [`%${needle}%`],
      );
      if (rows[0]!.n > 0) holding.push(name);
    }
    return holding;
  } finally {
    await client.end();
  }
}

describe('secrets in a federation', () => {
  const daemons = useDaemons(afterEach);

  it('Given two daemons sharing one key file, when a job with a secret is added on one, then the other runs it with the real value, and no table holds the secret', async () => {
    const database = await postgres.migratedDatabase();
    const [a, b] = [daemons.home(), daemons.home()];
    const args = ['--store', database.url, ...CLUSTER_ARGS];
    await daemons.start(a, args);
    shareKeyFile(a, b);
    await daemons.start(b, args);
    const seen = path.join(b, 'env-seen');

    const added = await addTokenJob(a, 'shared-secret', '1h', `printf %s "$TOKEN" > ${seen}`);
    expect(added.code, added.stderr).toBe(0);
    const shown = await sched(b, ['show', 'shared-secret', '--json']);
    const revealed = await sched(b, ['show', 'shared-secret', '--reveal', '--json']);
    const run = (await sched(b, ['trigger', 'shared-secret', '--json'])).json.id as string;
    await runWhere(b, run, (each) => isFinalRunState(each.state));

    expect(shown.json.job.target.env).toEqual({ TOKEN: '•••' });
    expect(revealed.json.job.target.env).toEqual({ TOKEN: SECRET });
    expect(fs.readFileSync(seen, 'utf8')).toBe(SECRET);
    expect(await tablesHolding(database.url, SECRET)).toEqual([]);
    // Each node's local copy of the definitions (for reads while the store is unreachable) holds it masked.
    for (const home of [a, b]) {
      const copy = fs.readdirSync(home).filter((file) => file.startsWith('local-copy.db'));
      expect(copy.length).toBeGreaterThan(0);
      for (const file of copy) expect(fs.readFileSync(path.join(home, file)).includes(SECRET)).toBe(false);
    }
  });

  it('Given a federation running, when a daemon joins with another key file, then it refuses to start, naming the key the store uses', async () => {
    const database = await postgres.migratedDatabase();
    const [a, b] = [daemons.home(), daemons.home()];
    const args = ['--store', database.url, ...CLUSTER_ARGS];
    await daemons.start(a, args);
    const storeKey = JSON.parse(fs.readFileSync(path.join(a, 'secret.key'), 'utf8')).current as string;
    // A daemon of its own first, on SQLite: its home gets a key of its own.
    await (await daemons.start(b)).stop();

    const joined = await sched(b, ['daemon', 'run', ...args]);

    expect(joined.code).toBe(4);
    expect(joined.stderr).toContain(`This store's secrets are sealed under key ${storeKey}`);
    expect(joined.stderr).toContain('Every daemon sharing a store needs the same key file');
  });

  it('Given two daemons reading one shared key file, when the key is rotated, then it takes --shared-file, and the other daemon goes on opening the secrets under the new key', async () => {
    const database = await postgres.migratedDatabase();
    const [a, b, keys] = [daemons.home(), daemons.home(), daemons.home()];
    const keyFile = { SCHED_KEY_FILE: path.join(keys, 'secret.key') };
    const args = ['--store', database.url, ...CLUSTER_ARGS];
    await daemons.start(a, args, keyFile);
    await daemons.start(b, args, keyFile);
    const seen = path.join(b, 'env-seen');
    await addTokenJob(a, 'rotated', '1h', `printf %s "$TOKEN" > ${seen}`);

    const refused = await sched(a, ['key', 'rotate']);
    const rotated = await sched(a, ['key', 'rotate', '--shared-file', '--json']);
    const revealed = await sched(b, ['show', 'rotated', '--reveal', '--json']);
    const run = (await sched(b, ['trigger', 'rotated', '--json'])).json.id as string;
    await runWhere(b, run, (each) => isFinalRunState(each.state));

    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('--shared-file');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.json).toMatchObject({ resealed: 1, jobs: 1 });
    expect(revealed.json.job.target.env).toEqual({ TOKEN: SECRET });
    expect(fs.readFileSync(seen, 'utf8')).toBe(SECRET);
    expect(Object.keys(JSON.parse(fs.readFileSync(keyFile.SCHED_KEY_FILE, 'utf8')).keys)).toEqual([
      rotated.json.key,
    ]);
  });
});
