import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { usePostgres } from '../support/postgres.js';
import { sched, useDaemons } from '../support/sched-harness.js';

const postgres = usePostgres();
const cleanups: Array<() => Promise<void>> = [];
const daemons = useDaemons((cleanup) => cleanups.push(cleanup));
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe('backups with a PostgreSQL store', () => {
  it('Given a daemon on PostgreSQL, when sched backup is asked for, then it says to use pg_dump, with the command and no password, and writes nothing', async () => {
    const { url } = await postgres.migratedDatabase();
    const password = new URL(url).password;
    const home = daemons.home();
    const file = path.join(daemons.home(), 'copy.dump');
    await daemons.start(home, ['--store', url]);

    const result = await sched(home, ['backup', file, '--json']);

    expect(result.code).toBe(4);
    expect(result.json.error.code).toBe('INVALID_STATE');
    expect(result.json.error.message).toMatch(/PostgreSQL .*sched backup copies SQLite stores only/);
    const withoutPassword = new URL(url);
    withoutPassword.password = '';
    expect(result.json.error.details.command).toBe(
      `pg_dump --format=custom --file=${file} ${withoutPassword.toString()}`,
    );
    expect(result.json.error.hint).toContain(result.json.error.details.command);
    expect(password).not.toBe('');
    expect(result.stdout).not.toContain(password);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('Given a PostgreSQL store, when sched restore is asked for, then it points to pg_restore', async () => {
    const home = daemons.home();
    const file = path.join(home, 'copy.db');
    fs.writeFileSync(file, '');

    const result = await sched(home, ['restore', file, '--json'], {
      env: { SCHED_STORE: 'postgres://sched:secret@127.0.0.1:1/sched' },
    });

    expect(result.code).toBe(4);
    expect(result.json.error.hint).toContain('pg_restore');
  });
});
