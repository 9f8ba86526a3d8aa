import type { StoredEvent, StoredEventType } from '../store.js';
import { step, type Script } from './script.js';
import type { Session } from './session.js';

/**
 * The events one transaction writes, marked with this process's node. The store hands them to its
 * listeners once the transaction has committed, and drops them when it rolled back.
 */
export class EventBatch {
  readonly stored: StoredEvent[] = [];

  constructor(readonly node: string) {}
}

export interface NewEvent {
  type: StoredEventType;
  at: number;
  jobId: string;
  runId: string | null;
  data: unknown;
}

/** Writes an event in the script's transaction: the outbox row commits with the change it reports. */
export function* recordEvent(session: Session, batch: EventBatch, event: NewEvent): Script<void> {
  const row = { ...event, node: batch.node, data: JSON.stringify(event.data) };
  const id = yield* step(session.insertEvent(row));
  batch.stored.push({ ...event, id, node: batch.node });
}
