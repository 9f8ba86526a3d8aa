import { SchedError } from '../core/errors.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';

/** Where the store lives: the SQLite file in the home by default, a `sqlite:PATH`, or a PostgreSQL URL. */
export function storeTarget(
  url: string | undefined,
  defaultPath: string,
): { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string } {
  if (url === undefined) return { kind: 'sqlite', path: defaultPath };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url };
  return { kind: 'sqlite', path: url.replace(/^sqlite:(\/\/)?/, '') || defaultPath };
}

/** Opens something on the PostgreSQL server, turning a failure to connect into an error that says what to check. */
export async function reachPostgres<T>(url: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof SchedError) throw error;
    throw new SchedError(
      'STORE_UNAVAILABLE',
      `Cannot use the PostgreSQL store ${redactUrl(url)}: ${(error as Error).message}.`,
      {
        hint: 'Check that the server is running and reachable, and the user, password and database in --store (or SCHED_STORE).',
      },
    );
  }
}

/** A store URL for display, without its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

/** Opens the store the daemon keeps its jobs in; `relaxed` durability trades the last moments before a power cut for speed (SQLite). */
export async function openStoreAt(
  target: ReturnType<typeof storeTarget>,
  durability: 'full' | 'relaxed',
  stalledTransactionTimeoutMs?: number,
): Promise<Store> {
  if (target.kind === 'postgres')
    return reachPostgres(target.url, () =>
      openPostgresStore(target.url, { applicationName: 'sched', stalledTransactionTimeoutMs }),
    );
  return openSqliteStore(target.path, { synchronous: durability === 'full' ? 'FULL' : 'NORMAL' });
}
