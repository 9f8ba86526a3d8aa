import type { RunOutputBatch, RunStart, StoredEvent, StoredEventType } from '../store.js';
import { step, type Script } from './script.js';
import type { Session } from './session.js';
import type { EventRow } from './tables.js';

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

/** The event that says a run started, with its pid when it has one. */
export function runStartedEvent(start: RunStart): NewEvent {
  const { runId, jobId, pid, at } = start;
  return { type: 'run:started', at, jobId, runId, data: { runId, jobId, pid, at } };
}

/** A batch of a running run's output, for followers on other nodes. */
export function runOutputEvent(output: RunOutputBatch): NewEvent {
  const { runId, jobId, stream, data, seq, at } = output;
  return { type: 'run:output', at, jobId, runId, data: { runId, stream, data, seq } };
}

/** The row of an event, marked with `node`; `data` is the event's data as JSON, when the caller has it. */
export function eventRow(event: NewEvent, node: string, data = JSON.stringify(event.data)): EventRow {
  return { type: event.type, at: event.at, jobId: event.jobId, runId: event.runId, data, node };
}

/**
 * The event as its listeners get it once stored. Not `{ ...event, id, node }`: on Node 20 a spread followed by
 * new keys builds the object in V8's runtime, ~1 us each time (see row-mapping's definitionOf).
 */
export function storedEvent(event: NewEvent, id: number, node: string): StoredEvent {
  return {
    type: event.type,
    at: event.at,
    jobId: event.jobId,
    runId: event.runId,
    data: event.data,
    id,
    node,
  };
}

/**
 * Writes an event in the script's transaction: the outbox row commits with the change it reports.
 * `data` is the event's data as JSON, when the caller has serialised it already.
 */
export function* recordEvent(
  session: Session,
  batch: EventBatch,
  event: NewEvent,
  data?: string,
): Script<void> {
  const id = yield* step(session.insertEvent(eventRow(event, batch.node, data)));
  batch.stored.push(storedEvent(event, id, batch.node));
}

/** Writes events in the script's transaction, in one statement where the dialect can, in their order. */
export function* recordEvents(
  session: Session,
  batch: EventBatch,
  events: readonly NewEvent[],
): Script<void> {
  if (events.length === 0) return;
  const ids = yield* step(session.insertEvents(events.map((event) => eventRow(event, batch.node))));
  events.forEach((event, index) => batch.stored.push(storedEvent(event, ids[index]!, batch.node)));
}
