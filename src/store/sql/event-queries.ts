import { asc, inArray } from 'drizzle-orm';
import { STORED_EVENT_TYPES, type StoredEvent, type StoredEventType } from '../store.js';
import type { StoreDialect } from './dialect.js';
import type { EventRow } from './tables.js';

const KNOWN_TYPES: ReadonlySet<string> = new Set(STORED_EVENT_TYPES);

/** Events above `after` (at most `limit`) and the ones among `ids`, in id order, unreadable rows left out. */
export async function readEvents(
  dialect: StoreDialect,
  query: { after: number; ids?: number[]; limit: number },
): Promise<StoredEvent[]> {
  const { session, tables } = dialect;
  const rows = await session.all(session.statements.eventsAfter, { after: query.after, limit: query.limit });
  const missing = (query.ids ?? []).filter((id) => id <= query.after);
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
  return readable(rows);
}

/** A run's stored output batches, in id order. */
export async function readRunOutput(dialect: StoreDialect, runId: string): Promise<StoredEvent[]> {
  return readable(await dialect.session.all(dialect.session.statements.runOutputEvents, { runId }));
}

function readable(rows: (EventRow & { id: number })[]): StoredEvent[] {
  return rows.flatMap((row) => {
    const event = eventOf(row);
    return event ? [event] : [];
  });
}

/** A row as it was written; one whose type is unknown or whose data is not JSON is dropped. */
function eventOf(row: EventRow & { id: number }): StoredEvent | null {
  if (!KNOWN_TYPES.has(row.type)) return null;
  try {
    return {
      id: Number(row.id),
      type: row.type as StoredEventType,
      node: row.node,
      at: Number(row.at),
      jobId: row.jobId,
      runId: row.runId,
      data: JSON.parse(row.data) as unknown,
    };
  } catch {
    return null;
  }
}
