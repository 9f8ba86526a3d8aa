import { SchedError } from '../core/errors.js';
import { STORED_EVENT_TYPES, type Store } from '../store/store.js';
import type { EventReplay } from './event-stream.js';

/** The types a stream takes from the outbox; a run's output goes out live on its own node, chunk by chunk. */
export const STREAMED_FROM_STORE: ReadonlySet<string> = new Set(
  STORED_EVENT_TYPES.filter((type) => type !== 'run:output'),
);

const REPLAY_PAGE = 500;

/** The retained events after `since`, for `sched watch --since`; an id not stored yet is refused. */
export async function replayAfter(
  store: Store,
  since: number,
): Promise<{ since: number; read: EventReplay }> {
  const latest = await store.latestEventId();
  if (since > latest)
    throw new SchedError(
      'VALIDATION_FAILED',
      `--since ${since} is past the latest event stored (${latest}).`,
      {
        hint: 'Give the "id" of an event that `sched watch --json` printed, or --since 0 for every event still kept.',
        details: { since, latest },
      },
    );
  return { since, read: (after) => store.readEvents({ after, limit: REPLAY_PAGE }) };
}
