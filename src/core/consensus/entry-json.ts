import type { LogEntry } from './raft-messages.js';

/** The JSON of each entry's data, by the data object: a leader sizes, stores and sends every entry. */
const made = new WeakMap<object, string>();

/**
 * The JSON of an entry's data, made once per data object however many times it is sized, written to the
 * log and sent (a leader of three did it five times an entry). Entry data is never changed once proposed.
 */
export function dataJson(data: unknown): string {
  if (data === null || data === undefined || typeof data !== 'object') return JSON.stringify(data ?? null);
  let json = made.get(data);
  if (json === undefined) {
    json = JSON.stringify(data);
    made.set(data, json);
  }
  return json;
}

/** An entry as the wire carries it, around the JSON of its data. */
export function entryJson(entry: LogEntry<unknown>): string {
  const voters = entry.voters === undefined ? '' : `,"voters":${JSON.stringify(entry.voters)}`;
  return `{"index":${entry.index},"term":${entry.term},"data":${dataJson(entry.data)}${voters}}`;
}
