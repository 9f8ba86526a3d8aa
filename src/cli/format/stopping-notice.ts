import { formatDuration } from '../../core/duration.js';

/**
 * What a foreground daemon says on its first stop signal, so the person at the terminal knows why it has
 * not exited yet and how to make it. `again` names the key or signal that stops the runs at once.
 */
export function stoppingNotice(runningRuns: number, graceMs: number, again: string): string {
  if (runningRuns === 0) return 'Stopping: no run is running, so the daemon exits now.';
  const runs = runningRuns === 1 ? '1 running run' : `${runningRuns} running runs`;
  return (
    `Stopping: waiting for ${runs} to finish (grace ${formatDuration(graceMs)}). ` +
    `${again} to stop ${runningRuns === 1 ? 'it' : 'them'} now.`
  );
}

export const HURRY_NOTICE = 'Stopping the running runs now; they are recorded as cancelled.';
