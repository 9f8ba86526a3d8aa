import { SchedError } from '../core/errors.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { createPrivateFile } from './private-file.js';
import type { Service } from './service.js';
import { acquireDatabaseLock, type InstanceLock } from './single-instance-lock.js';

export type StoreTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** Where the store lives: the SQLite file in the home by default, a `sqlite:PATH`, or a PostgreSQL URL. */
export function storeTarget(url: string | undefined, defaultPath: string): StoreTarget {
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

/** Where the store lives, for `sched daemon status`: the SQLite path, or the URL without its password. */
export function describeStoreTarget(target: StoreTarget): string {
  return target.kind === 'postgres' ? redactUrl(target.url) : `sqlite:${target.path}`;
}

/**
 * The store the daemon keeps its jobs in, open while the daemon runs. A SQLite database is locked to this
 * daemon first and created private (0600); `relaxed` durability trades the last moments before a power
 * cut for speed (SQLite). On PostgreSQL a session stalled in a transaction longer than
 * `stalledTransactionTimeoutMs` is ended by the server, so its locks cannot hold up the other nodes.
 */
export class StoreService implements Service {
  readonly name = 'store';
  private opened: Store | null = null;
  private databaseLock: InstanceLock | null = null;

  constructor(
    private readonly target: StoreTarget,
    private readonly durability: 'full' | 'relaxed',
    private readonly stalledTransactionTimeoutMs: number,
  ) {}

  get store(): Store {
    if (this.opened === null) throw new Error('the store is used before it was opened');
    return this.opened;
  }

  async start(): Promise<void> {
    const target = this.target;
    if (target.kind === 'postgres') {
      const options = {
        applicationName: 'sched',
        stalledTransactionTimeoutMs: this.stalledTransactionTimeoutMs,
      };
      this.opened = await reachPostgres(target.url, () => openPostgresStore(target.url, options));
      return;
    }
    this.databaseLock = acquireDatabaseLock(target.path);
    try {
      createPrivateFile(target.path);
      const synchronous = this.durability === 'full' ? 'FULL' : 'NORMAL';
      this.opened = await openSqliteStore(target.path, { synchronous });
    } catch (error) {
      this.databaseLock.release();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.opened?.close();
    this.databaseLock?.release();
  }
}
