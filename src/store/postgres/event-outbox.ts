import type pg from 'pg';
import type { RunPid } from '../sql/session.js';
import type { EventRow } from '../sql/tables.js';
import type { EventAnnouncement } from '../store.js';
import { listenOn, type Channel } from './job-changes.js';
import type { PostgresServer } from './tls-options.js';

/** The channel on which each node announces the highest id it stored, just after the commit. */
export const EVENTS_CHANNEL = 'sched_events';

/** The largest id a payload may carry: beyond it, a payload is not one of ours. */
const MAX_EVENT_ID = Number.MAX_SAFE_INTEGER;

/**
 * Once a write has committed, the announcements after it wait this long for others to share a NOTIFY.
 * A NOTIFY in the writing transaction would cost each fire more than its INSERT: PostgreSQL makes every
 * transaction that notifies commit one at a time (it locks the notification queue until the commit).
 */
const ANNOUNCE_MS = 5;

/** An event costs its transaction one round trip. Named, so each connection parses and plans it once. */
const INSERT_EVENT = {
  name: 'sched_insert_event',
  text: `INSERT INTO events (type, node, at, job_id, run_id, data) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
};

/** The pid of a run that started and its `run:started` event, in one statement. */
const START_RUN = {
  name: 'sched_start_run',
  text: `WITH started AS (
    UPDATE runs SET pid = $7::integer, started_at = $9::bigint WHERE id = $8
  ) INSERT INTO events (type, node, at, job_id, run_id, data) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
};

type Client = pg.Pool | pg.PoolClient;

export async function insertEventAndAnnounce(client: Client, row: EventRow): Promise<number> {
  return storedId(await client.query<{ id: string }>({ ...INSERT_EVENT, values: eventValues(row) }));
}

export async function startRunAndAnnounce(
  client: Client,
  { runId, pid, startedAt }: RunPid,
  row: EventRow,
): Promise<number> {
  if (pid === null) return insertEventAndAnnounce(client, row);
  return storedId(
    await client.query<{ id: string }>({
      ...START_RUN,
      values: [...eventValues(row), pid, runId, startedAt],
    }),
  );
}

function eventValues(row: EventRow): unknown[] {
  return [row.type, row.node, row.at, row.jobId, row.runId, row.data];
}

function storedId(result: pg.QueryResult<{ id: string }>): number {
  const id = result.rows[0]?.id;
  if (id === undefined) throw new Error('the event insert returned no id');
  return Number(id);
}

/**
 * Announces the events this process stored, once committed: one NOTIFY with the highest id for all those
 * committed within ANNOUNCE_MS (or while the last NOTIFY was on its way). Listeners read every row after
 * the last id they saw, so one id stands for all before it; a NOTIFY that fails is caught up by their
 * periodic read.
 */
export class EventAnnouncer {
  private highest = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | null = null;

  constructor(private readonly pool: pg.Pool) {}

  committed(id: number): void {
    if (id > this.highest) this.highest = id;
    if (this.timer === undefined && this.sending === null)
      this.timer = setTimeout(() => this.send(), ANNOUNCE_MS);
  }

  private send(): void {
    this.timer = undefined;
    const id = this.highest;
    this.sending = this.pool
      .query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, String(id)])
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.sending = null;
        if (this.highest > id) this.committed(this.highest);
      });
  }

  /** Sends what is still to send; the pool must still be open. */
  async close(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.send();
    }
    await this.sending;
  }
}

/** An announced id; anything else on the channel (a stray NOTIFY, say) is dropped, never thrown. */
export function announcementOf(payload: string): EventAnnouncement | null {
  if (!/^[1-9][0-9]{0,15}$/.test(payload)) return null;
  const id = Number(payload);
  return id <= MAX_EVENT_ID ? { kind: 'event', id } : null;
}

const EVENTS: Channel<EventAnnouncement> = {
  channel: EVENTS_CHANNEL,
  applicationName: 'sched-events',
  parse: announcementOf,
  missed: { kind: 'missed' },
};

/** Listens for stored events on a connection of its own (`sched-events` in pg_stat_activity). */
export function listenForEvents(
  server: PostgresServer,
  onAnnounce: (announcement: EventAnnouncement) => void,
  onError: (error: Error) => void,
): Promise<() => Promise<void>> {
  return listenOn(EVENTS, server, onAnnounce, onError);
}
