import { SchedError } from '../core/errors.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import { NO_TLS_FILES, type PostgresTlsFiles } from '../store/postgres/tls-plan.js';
import { GATHER_WRITES_MS, REPLICA_COMMIT_SPACING, type CommitPacing } from '../store/sqlite/group-commit.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { createPrivateFile } from './private-file.js';
import type { Service } from './service.js';
import { acquireDatabaseLock, type InstanceLock } from './single-instance-lock.js';

export type StoreTarget =
  { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; tls: PostgresTlsFiles };

/**
 * Where the store lives: the SQLite file in the home by default, a `sqlite:PATH`, or a PostgreSQL URL
 * (with the `pg_*_file` settings, which fill in what its sslrootcert, sslcert and sslkey leave out).
 */
export function storeTarget(
  url: string | undefined,
  defaultPath: string,
  tls: PostgresTlsFiles = NO_TLS_FILES,
): StoreTarget {
  if (url === undefined) return { kind: 'sqlite', path: defaultPath };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url, tls };
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
        hint: unreachableHint(error as NodeJS.ErrnoException),
      },
    );
  }
}

// Node's certificate checks fail with OpenSSL's codes; pg's and the server's TLS refusals only say so in words.
function unreachableHint(error: NodeJS.ErrnoException): string {
  const code = typeof error.code === 'string' ? error.code : '';
  if (/client certificate/i.test(error.message))
    return 'The server asks for a client certificate: set pg_cert_file and pg_key_file (or sslcert and sslkey in the URL) to one its CA signed for this user.';
  if (
    /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO)/.test(code) ||
    /\bSSL\b|certificate/i.test(error.message)
  )
    return "The TLS connection failed: check that sslrootcert (or pg_ca_file) names the CA that signed the server's certificate, that the host in the URL is one the certificate names, and that the server has ssl = on.";
  if (/no encryption/.test(error.message))
    return 'The server accepts only TLS connections here: add sslmode=verify-full and sslrootcert (or pg_ca_file) to the store URL.';
  return 'Check that the server is running and reachable, and the user, password and database in --store (or SCHED_STORE).';
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
 * How a SQLite store commits: `full` syncs every commit, `relaxed` trades the last moments before a power
 * cut for speed, `replica` is relaxed and copies its write-ahead log into the database ten times more
 * rarely: a peer's copy of the replicated log, written at the log's pace (hundreds of commits a second
 * rewriting the same index pages), copied each page back once per checkpoint, and each checkpoint syncs.
 */
export type StoreDurability = 'full' | 'relaxed' | 'replica';

const REPLICA_CHECKPOINT_PAGES = 10_000;

/**
 * A peer's replica commits what the log applies, whose entries come as fast as the cluster writes whatever
 * the commits' delay: its commits are spaced, so that under load they grow larger and fewer. The daemon's
 * own store answers clients, who wait for each answer: its writes wait a moment for company.
 */
export function writePacing(durability: StoreDurability): CommitPacing {
  return durability === 'replica' ? { spacing: REPLICA_COMMIT_SPACING } : { maxGatherMs: GATHER_WRITES_MS };
}

/**
 * The store the daemon keeps its jobs in, open while the daemon runs. A SQLite database is locked to this
 * daemon first and created private (0600), and commits as its durability says. On PostgreSQL a session stalled in a transaction longer than
 * `stalledTransactionTimeoutMs` is ended by the server, so its locks cannot hold up the other nodes.
 */
export class StoreService implements Service {
  readonly name = 'store';
  private opened: Store | null = null;
  private databaseLock: InstanceLock | null = null;

  constructor(
    private readonly target: StoreTarget,
    private readonly durability: StoreDurability,
    private readonly stalledTransactionTimeoutMs: number,
    /** Whether SQLite writes may wait to commit with others (see GroupCommit's pacing). */
    private readonly paceWrites: boolean,
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
      const server = { url: target.url, tls: target.tls };
      this.opened = await reachPostgres(target.url, () => openPostgresStore(server, options));
      return;
    }
    this.databaseLock = acquireDatabaseLock(target.path);
    try {
      createPrivateFile(target.path);
      const synchronous = this.durability === 'full' ? 'FULL' : 'NORMAL';
      const checkpointEveryPages = this.durability === 'replica' ? REPLICA_CHECKPOINT_PAGES : undefined;
      const pacing = this.paceWrites ? writePacing(this.durability) : {};
      this.opened = await openSqliteStore(target.path, { synchronous, checkpointEveryPages, pacing });
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
