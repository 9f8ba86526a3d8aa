import type { RunJournal } from '../../store/local-copy/run-journal.js';
import type { FinishedRun, Store } from '../../store/store.js';

/**
 * The store as the run launcher sees it: a run fired while the store was unreachable lives in the journal
 * until the replay has written it, so its reads and its end go there; one replayed while it ran leaves the
 * journal once the store has its end. Its pid and live output are not kept (the run has ended by the time
 * anyone could read them elsewhere; its tails are in its end).
 */
export function journaledRunsStore(store: Store, journal: RunJournal): Store {
  const journaled = (runId: string): boolean => journal.holdsAlone(runId);
  const overrides: Partial<Store> = {
    findRun: async (id) => (journaled(id) ? journal.read(id) : store.findRun(id)),
    finishRun: async (runId, outcome, retry, deliveries): Promise<FinishedRun> => {
      if (!journal.finish(runId, outcome)) {
        const finished = await store.finishRun(runId, outcome, retry, deliveries);
        journal.settle(runId);
        return finished;
      }
      // Neither a retry nor notifications can be stored without the store; the replay writes the end alone.
      return { run: journal.read(runId)!, retry: null };
    },
    finishRuns: async (ends): Promise<(FinishedRun | null)[]> => {
      const results: (FinishedRun | null)[] = ends.map(({ runId, outcome }) =>
        journal.finish(runId, outcome) ? { run: journal.read(runId)!, retry: null } : null,
      );
      const stored = ends.filter((_, index) => results[index] === null);
      if (stored.length === 0) return results;
      const written = await store.finishRuns(stored);
      for (const { runId } of stored) journal.settle(runId);
      const inOrder = written.values();
      return results.map((result) => result ?? inOrder.next().value ?? null);
    },
    recordRunStarted: async (start) => (journaled(start.runId) ? undefined : store.recordRunStarted(start)),
    // Nothing is asked of the store when it has nothing to write: a call that succeeds says it is reachable.
    recordRunsStarted: async (starts) => {
      const stored = starts.filter((start) => !journaled(start.runId));
      if (stored.length > 0) await store.recordRunsStarted(stored);
    },
    setRunPid: async (runId, pid) => (journaled(runId) ? undefined : store.setRunPid(runId, pid)),
    appendRunOutput: async (batch) => (journaled(batch.runId) ? undefined : store.appendRunOutput(batch)),
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === 'string' && Object.hasOwn(overrides, property))
        return overrides[property as keyof Store];
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}
