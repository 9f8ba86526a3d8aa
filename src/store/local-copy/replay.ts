import { isStoreUnreachable } from '../unreachable.js';
import { SchedError } from '../../core/errors.js';
import type { Store } from '../store.js';
import type { RunJournal } from './run-journal.js';

/**
 * Writes the journaled runs to the store, oldest first, then the journaled ends of runs it held; keyed by run id: a run the store holds already is
 * not inserted again, and an end it holds already is not written again, so a replay cut short (the store
 * gone again, the daemon killed) is simply replayed again. A run still running is left to write its own
 * end to the store. Stops at the first failure to reach the store (the rest wait for the next replay);
 * returns how many runs and ends the store took.
 */
export async function replayJournal(
  journal: RunJournal,
  store: Store,
  onRefused: (error: SchedError) => void,
): Promise<number> {
  let replayed = 0;
  for (const { run } of journal.pending()) {
    try {
      let stored = await store.findRun(run.id);
      if (stored === null) {
        try {
          await store.insertRun(run);
        } catch (error) {
          // The write refused while the store was out of reach may have landed after all (a peer's proposal
          // committed once the majority was back): then the run is there under its id, and keeps its end.
          stored = await store.findRun(run.id);
          if (stored === null) throw error;
        }
      }
      // Read again after the write: the run may have ended while it was under way.
      const entry = journal.get(run.id);
      if (entry?.outcome === null || entry?.outcome === undefined) {
        journal.markInStore(run.id);
      } else {
        if (stored === null || stored.state === 'running') await store.finishRun(run.id, entry.outcome);
        journal.remove(run.id);
      }
      replayed += 1;
    } catch (error) {
      // A run the store refuses (its instant was stored under another id) would block every later one; a
      // store still out of reach (a peer's NO_QUORUM is a SchedError too) ends this replay, to be tried again.
      if (!(error instanceof SchedError) || isStoreUnreachable(error)) throw error;
      onRefused(error);
      journal.remove(run.id);
    }
  }
  for (const { runId, outcome } of journal.pendingEnds()) {
    try {
      // One recorded lost meanwhile (this node was gone past its lease) keeps that record.
      if ((await store.findRun(runId))?.state === 'running') await store.finishRun(runId, outcome);
    } catch (error) {
      if (!(error instanceof SchedError) || isStoreUnreachable(error)) throw error;
      onRefused(error);
    }
    journal.removeEnd(runId);
    replayed += 1;
  }
  return replayed;
}
