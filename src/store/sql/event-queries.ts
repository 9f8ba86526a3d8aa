import { asc, inArray } from 'drizzle-orm';
import { STORED_EVENT_TYPES, type EventsQuery, type StoredEvent, type StoredEventType } from '../store.js';
import type { StoreDialect } from './dialect.js';
import type { EventRow } from './tables.js';

const KNOWN_TYPES: ReadonlySet<string> = new Set(STORED_EVENT_TYPES);

/**
 * Events above `after` (at most `limit`) and the ones among `ids`, in id order, unreadable rows left out.
 * The events of `withoutDataOf` come back with null data, not parsed: the node that stored them has them.
 */
export async function readEvents(
  dialect: StoreDialect,
  query: EventsQuery & { withoutDataOf?: string },
): Promise<StoredEvent[]> {
  const { session, tables } = dialect;
  const rows = await session.all(session.statements.eventsAfter, { after: query.after, limit: query.limit });
  const missing = missingIds(query);
  if (missing.length > 0) {
    const late = await session.query<EventRow & { id: number }>((db) =>
      db
        .select()
        .from(tables.events)
        .where(inArray(tables.events.id, missing))
        .orderBy(asc(tables.events.id)),
    );
    rows.unshift(...late);
  }
  return readable(rows, query.withoutDataOf);
}

/** The ids `readEvents` would return, without reading the events. */
export async function readEventIds(dialect: StoreDialect, query: EventsQuery): Promise<number[]> {
  const { session, tables } = dialect;
  const rows = await session.all(session.statements.eventIdsAfter, {
    after: query.after,
    limit: query.limit,
  });
  const missing = missingIds(query);
  if (missing.length > 0) {
    const late = await session.query<{ id: number }>((db) =>
      db
        .select({ id: tables.events.id })
        .from(tables.events)
        .where(inArray(tables.events.id, missing))
        .orderBy(asc(tables.events.id)),
    );
    rows.unshift(...late);
  }
  return rows.map((row) => Number(row.id));
}

/** The ids asked for again that a read from `after` on would not return. */
function missingIds(query: EventsQuery): number[] {
  return (query.ids ?? []).filter((id) => id <= query.after);
}

/** A run's stored output batches, in id order. */
export async function readRunOutput(dialect: StoreDialect, runId: string): Promise<StoredEvent[]> {
  return readable(await dialect.session.all(dialect.session.statements.runOutputEvents, { runId }));
}

function readable(rows: (EventRow & { id: number })[], withoutDataOf?: string): StoredEvent[] {
  return rows.flatMap((row) => {
    const event = eventOf(row, row.node === withoutDataOf);
    return event ? [event] : [];
  });
}

/** A row as it was written; one whose type is unknown or whose data (when read) is not JSON is dropped. */
function eventOf(row: EventRow & { id: number }, withoutData = false): StoredEvent | null {
  if (!KNOWN_TYPES.has(row.type)) return null;
  try {
    return {
      id: Number(row.id),
      type: row.type as StoredEventType,
      node: row.node,
      at: Number(row.at),
      jobId: row.jobId,
      runId: row.runId,
      data: withoutData ? null : (JSON.parse(row.data) as unknown),
    };
  } catch {
    return null;
  }
}
