import type { StreamEventType } from './protocol.js';

/**
 * The event types the daemon publishes to subscribers (`stream:dropped` is only ever sent to the one
 * being dropped). Kept apart from protocol.ts so clients can read it without loading zod.
 */
export const PUBLISHED_EVENT_TYPES = [
  'daemon:started',
  'daemon:stopping',
  'job:created',
  'job:updated',
  'job:cancelled',
  'run:fired',
  'run:started',
  'run:output',
  'run:finished',
  'run:lost',
  'run:retry-scheduled',
  'run:dead',
  'occurrence:recorded',
  'job:overdue',
  'job:recovered',
] as const satisfies readonly StreamEventType[];
