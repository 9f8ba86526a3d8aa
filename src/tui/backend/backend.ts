import type { RunSummary } from '../../core/run.js';
import type { Action, Effect } from '../state/types.js';

export type Dispatch = (action: Action) => void;

/**
 * Everything the dashboard asks of the outside world. The real one talks to the daemon
 * (daemon-backend.ts); tests hand in a fake and dispatch the actions a daemon would cause.
 */
export interface DashBackend {
  /** Connects, and reconnects whenever the connection is lost; reports all it learns as actions. Returns stop. */
  start(dispatch: Dispatch): () => void;
  /** Carries out what a key asked for; the outcome comes back as actions (a message, a loaded run). */
  perform(effect: Effect, dispatch: Dispatch): void;
  /** The latest runs of one job, newest first. */
  loadHistory(jobId: string): Promise<readonly RunSummary[]>;
}
