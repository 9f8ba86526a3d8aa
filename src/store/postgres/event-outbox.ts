import type pg from 'pg';
import type { EventRow } from '../sql/tables.js';
import type { EventAnnouncement } from '../store.js';
import { listenOn, type Channel } from './job-changes.js';

/** The channel on which every stored event announces its id, at the commit of its transaction. */
export const EVENTS_CHANNEL = 'sched_events';

/** The largest id a payload may carry: beyond it, a payload is not one of ours. */
const MAX_EVENT_ID = Number.MAX_SAFE_INTEGER;

/**
 * One statement writes the row and queues its announcement (sent at commit, dropped at rollback), so an
 * event costs its transaction one round trip. Named, so each connection parses and plans it once.
 */
const INSERT_EVENT = {
  name: 'sched_insert_event',
  text: `WITH stored AS (
    INSERT INTO events (type, node, at, job_id, run_id, data) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
  ) SELECT id, pg_notify('${EVENTS_CHANNEL}', id::text) FROM stored`,
};

/** The pid of a run that started (when it has one) and its `run:started` event, in one statement. */
const START_RUN = {
  name: 'sched_start_run',
  text: `WITH started AS (
    UPDATE runs SET pid = $7::integer WHERE id = $8 AND $7::integer IS NOT NULL
  ), stored AS (
    INSERT INTO events (type, node, at, job_id, run_id, data) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
  ) SELECT id, pg_notify('${EVENTS_CHANNEL}', id::text) FROM stored`,
};

type Client = pg.Pool | pg.PoolClient;

export async function insertEventAndAnnounce(client: Client, row: EventRow): Promise<number> {
  return storedId(await client.query<{ id: string }>({ ...INSERT_EVENT, values: eventValues(row) }));
}

export async function startRunAndAnnounce(
  client: Client,
  runId: string,
  pid: number | null,
  row: EventRow,
): Promise<number> {
  return storedId(
    await client.query<{ id: string }>({ ...START_RUN, values: [...eventValues(row), pid, runId] }),
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
  url: string,
  onAnnounce: (announcement: EventAnnouncement) => void,
  onError: (error: Error) => void,
): Promise<() => Promise<void>> {
  return listenOn(EVENTS, url, onAnnounce, onError);
}
