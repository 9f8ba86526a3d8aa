import { JOB_AND_RUN_EVENT_TYPES } from '../core/job-run-event-types.js';
import type { StreamEventType } from './protocol.js';

/**
 * The event types the daemon publishes to subscribers (`stream:dropped` is only ever sent to the one
 * being dropped). Kept apart from protocol.ts so clients can read it without loading zod.
 */
export const PUBLISHED_EVENT_TYPES = [
  'daemon:started',
  'daemon:stopping',
  ...JOB_AND_RUN_EVENT_TYPES,
  'occurrence:recorded',
  'job:overdue',
  'job:recovered',
] as const satisfies readonly StreamEventType[];
