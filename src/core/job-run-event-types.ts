/**
 * The job and run events: what the store writes to its event log with the change each reports (a running
 * run's output in batches), and what crosses from node to node. A part of every stream's event types.
 */
export const JOB_AND_RUN_EVENT_TYPES = [
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
] as const;
