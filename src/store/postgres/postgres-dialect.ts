import type { EventAnnouncement, StoreChange } from '../store.js';
import { EventAnnouncer, listenForEvents } from './event-outbox.js';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Retention, StoreDialect } from '../sql/dialect.js';
import { postgresRowLimit } from '../sql/row-limit.js';
import { runAsync, type Awaitable, type Script } from '../sql/script.js';
import type { Session } from '../sql/session.js';
import { POSTGRES_ENCODING, searchableLabels } from './encoding.js';
import { listenForChanges, notifyKill } from './job-changes.js';
import { isUniqueViolation } from './pg-errors.js';
import { postgresRetention } from './retention.js';
import { meta } from './schema.js';
import { inTransaction, openSession, type PgSession } from './session.js';
import { postgresTables } from './statements.js';
import type { PostgresServer } from './tls-options.js';

/**
 * PostgreSQL under the shared store, through a pool of connections. Every write that touches more than
 * one row runs in one transaction on one connection; a write of one statement is its own transaction.
 * Under READ COMMITTED, an UPDATE that waited for a concurrent writer re-checks its WHERE on the row as
 * that writer left it, so the shared compare-and-set statements hold across daemons.
 */
export class PostgresDialect implements StoreDialect {
  readonly capabilities = { notify: true };
  readonly tables = postgresTables;
  readonly encoding = POSTGRES_ENCODING;
  readonly session: PgSession;
  readonly retention: Retention;
  readonly isUniqueViolation = isUniqueViolation;
  readonly rowLimit = postgresRowLimit;
  private closing: Promise<void> | undefined;
  private readonly announcer: EventAnnouncer;

  /** Takes a pool from `openPostgresPool`, whose schema it relies on; `close()` ends the pool. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly server: PostgresServer,
  ) {
    this.session = openSession(pool);
    this.retention = postgresRetention(this.session.db);
    this.announcer = new EventAnnouncer(pool);
  }

  eventsStored(highestId: number): void {
    this.announcer.committed(highestId);
  }

  async write<T>(work: (session: Session) => Awaitable<T>): Promise<T> {
    return work(this.session);
  }

  transaction<T>(script: (session: Session) => Script<T>): Promise<T> {
    return inTransaction(this.pool, (session) => runAsync(script(session)));
  }

  /** jsonb containment: every given label is there with that value, whatever the key's characters. */
  hasLabels(labels: Record<string, string>) {
    if (Object.keys(labels).length === 0) return undefined;
    return sql`${postgresTables.jobs.labels} @> ${JSON.stringify(searchableLabels(labels))}::jsonb`;
  }

  async ping(): Promise<void> {
    // Reading meta proves the schema is there; a standby (or a read-only database) still answers
    // reads, but the store must write.
    const { rows } = await this.session.db.execute<{ read_only: string }>(
      sql`SELECT current_setting('transaction_read_only') AS read_only FROM (SELECT count(*) FROM ${meta}) AS readable`,
    );
    if (rows[0]?.read_only !== 'off') throw new Error('the PostgreSQL database is read-only (a standby?)');
  }

  async watchChanges(
    onChange: (change: StoreChange) => void,
    onError: (error: Error) => void,
  ): Promise<() => Promise<void>> {
    return listenForChanges(this.server, onChange, onError);
  }

  async watchEvents(
    onAnnounce: (announcement: EventAnnouncement) => void,
    onError: (error: Error) => void,
  ): Promise<() => Promise<void>> {
    return listenForEvents(this.server, onAnnounce, onError);
  }

  async relayKill(runId: string, reason: string): Promise<void> {
    await notifyKill(this.pool, runId, reason);
  }

  async close(): Promise<void> {
    this.closing ??= this.announcer.close().then(() => this.pool.end());
    await this.closing;
  }
}
