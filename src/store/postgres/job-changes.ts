import type { StoreChange } from '../store.js';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { mapReplaced } from '../store-errors.js';
import type { Db } from './session.js';
import { postgresClientConfig, type PostgresServer } from './tls-options.js';

/** The LISTEN/NOTIFY channel on which every job write announces the job's id, and a waiting run `run:ID`. */
export const JOB_CHANGES_CHANNEL = 'sched_jobs';
const WAITING_RUN_PREFIX = 'run:';
const KILL_PREFIX = 'kill:';
const RECONNECT_DELAY_MS = 1_000;

/** Announces, at commit, that a job was written, so every daemon's scheduler takes the change at once. */
export async function notifyJobChanged(db: Db, jobId: string): Promise<void> {
  await db.execute(sql`SELECT pg_notify(${JOB_CHANGES_CHANNEL}, ${jobId})`);
}

/** Announces, at commit, a run that waits to start, so the node it is routed to takes it at once. */
export async function notifyRunWaiting(db: Db, runId: string): Promise<void> {
  await db.execute(sql`SELECT pg_notify(${JOB_CHANGES_CHANNEL}, ${WAITING_RUN_PREFIX + runId})`);
}

/** Asks whichever node runs `runId` to kill it: every node listens, the one running it acts. */
export async function notifyKill(pool: pg.Pool, runId: string, reason: string): Promise<void> {
  await pool.query('SELECT pg_notify($1, $2)', [
    JOB_CHANGES_CHANNEL,
    KILL_PREFIX + JSON.stringify({ runId, reason }),
  ]);
}

function changeOf(payload: string): StoreChange | null {
  if (payload.startsWith(WAITING_RUN_PREFIX))
    return { kind: 'waiting-run', id: payload.slice(WAITING_RUN_PREFIX.length) };
  if (payload.startsWith(KILL_PREFIX)) return killOf(payload.slice(KILL_PREFIX.length));
  return { kind: 'job', id: payload };
}

/** A kill request as another node wrote it; anything else on the channel is dropped, never thrown. */
function killOf(json: string): StoreChange | null {
  try {
    const value = JSON.parse(json) as { runId?: unknown; reason?: unknown };
    if (typeof value.runId !== 'string' || typeof value.reason !== 'string') return null;
    return { kind: 'kill', runId: value.runId, reason: value.reason };
  } catch {
    return null;
  }
}

/**
 * Refuses a fire from a shard map that is no longer the one in force. FOR SHARE orders this against a
 * publish of a new map: a publish in progress is waited for, and a publish waits for this transaction.
 */
export async function assertMapInForce(db: Db, fence: { term: number; publishedAt: number }): Promise<void> {
  const result = await db.execute<{ term: string; published_at: string }>(
    sql`SELECT term, published_at FROM cluster_map WHERE id = 1 FOR SHARE`,
  );
  const row = result.rows[0];
  if (row && Number(row.term) === fence.term && Number(row.published_at) === fence.publishedAt) return;
  throw mapReplaced(fence, row ? Number(row.term) : null);
}

/**
 * Listens for job changes and waiting runs on a dedicated connection, reconnecting (and reporting the
 * loss) when the server goes away, until the returned function is called. After a reconnect `onChange`
 * gets `missed`: changes may have been missed, so the caller reloads.
 */
export async function listenForChanges(
  server: PostgresServer,
  onChange: (change: StoreChange) => void,
  onError: (error: Error) => void,
): Promise<() => Promise<void>> {
  return listenOn(
    {
      channel: JOB_CHANGES_CHANNEL,
      applicationName: 'sched-listen',
      parse: changeOf,
      missed: { kind: 'missed' },
    },
    server,
    onChange,
    onError,
  );
}

/** A channel to LISTEN on, and how its payloads read; a payload that reads as null is dropped. */
export interface Channel<Message> {
  channel: string;
  /** Shown in pg_stat_activity, so the connection can be found (and tested by ending it). */
  applicationName: string;
  parse(payload: string): Message | null;
  /** What `onMessage` gets after a reconnect: messages may have been missed meanwhile. */
  missed: Message;
}

/**
 * Listens on a channel on a dedicated connection, reconnecting (and reporting the loss) when the server
 * goes away, until the returned function is called. After a reconnect `onMessage` gets `missed`.
 */
export async function listenOn<Message>(
  { channel, applicationName, parse, missed }: Channel<Message>,
  server: PostgresServer,
  onMessage: (message: Message) => void,
  onError: (error: Error) => void,
): Promise<() => Promise<void>> {
  const onChange = onMessage;
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (reconnecting: boolean): Promise<void> => {
    const next = new pg.Client({ ...postgresClientConfig(server), application_name: applicationName });
    next.on('notification', (message) => {
      const change = message.channel === channel && message.payload ? parse(message.payload) : null;
      if (change !== null) onChange(change);
    });
    next.on('error', (error) => {
      onError(error);
      scheduleReconnect();
    });
    next.on('end', () => scheduleReconnect());
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      next.removeAllListeners('end');
      await next.end().catch(() => undefined);
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    if (reconnecting) onChange(missed);
  };
  const scheduleReconnect = (): void => {
    if (stopped || retry !== undefined) return;
    const lost = client;
    client = null;
    lost?.removeAllListeners('end');
    void lost?.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = undefined;
      connect(true).catch((error: Error) => {
        onError(error);
        scheduleReconnect();
      });
    }, RECONNECT_DELAY_MS);
  };
  await connect(false);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const open = client as pg.Client | null;
    client = null;
    open?.removeAllListeners('end');
    await open?.end().catch(() => undefined);
  };
}
