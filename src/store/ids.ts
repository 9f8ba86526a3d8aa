import { v7 } from 'uuid';

/** A UUIDv7: time-ordered, so ids sort by creation and index inserts stay at the right edge. */
export function newId(): string {
  return v7();
}
