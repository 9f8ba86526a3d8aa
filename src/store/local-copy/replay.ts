import { isStoreUnreachable } from '../unreachable.js';
import { SchedError } from '../../core/errors.js';
import type { RunOutcome } from '../../core/run.js';
import type { NewOccurrence, Store } from '../store.js';
import type { OccurrenceJournal } from './occurrence-journal.js';
import type { JournaledRun, RunJournal } from './run-journal.js';

/** What a node journaled while the store was unreachable (its LocalCopy). */
export interface Journals {
  runs: RunJournal;
  occurrences: OccurrenceJournal;
}

/**
 * Runs replayed at once: each is its own sequence of writes, so many in flight let the store take them in
 * few commits (a peer's log, one proposal of many). One by one, a journal of hundreds of runs took a
 * restarted node minutes on a loaded machine, and its start waited on it.
 */
const REPLAYED_TOGETHER = 64;

/**
 * Writes the journaled runs to the store, oldest first, then the journaled ends of runs it held, then the
 * journaled ledger entries; keyed by run id: a run the store holds already is not inserted again, and an
 * end it holds already is not written again; keyed by instant and node: the store keeps a node's first
 * entry of an instant, so one it holds already is not doubled. A replay cut short (the store gone again,
 * the daemon killed) is simply replayed again. A run still running is left to write its own end to the
 * store. Stops after the writes under way when the store cannot be reached (the rest wait for the next
 * replay); returns how many runs, ends and entries the store took. `onEndSettled` hears of each journaled
 * end of a run the store held once the journal lets it go: the store holds it, holds the run ended some
 * other way, has no such run, or refused the end (reported through `onRefused`).
 */
export async function replayJournal(
  { runs: journal, occurrences }: Journals,
  store: Store,
  onRefused: (error: SchedError) => void,
  onEndSettled: (runId: string) => void = () => {},
): Promise<number> {
  const runs = await inGroups(journal.pending(), (run) => replayRun(run, journal, store, onRefused));
  const ends = await inGroups(journal.pendingEnds(), async ({ runId, outcome }) => {
    // One recorded lost meanwhile (this node was gone past its lease) keeps that record.
    if ((await store.findRun(runId))?.state === 'running') await writeEnd(store, runId, outcome, onRefused);
    journal.removeEnd(runId);
    journal.settle(runId);
    onEndSettled(runId);
  });
  let entries = 0;
  for (const group of groupsOf(occurrences.pending())) {
    await replayEntries(group, occurrences, store, onRefused);
    entries += group.length;
  }
  return runs + ends + entries;
}

/**
 * Writes a group of journaled ledger entries in one call. One the store refuses would block every later
 * one: then each is written alone, and the refused ones reported and dropped.
 */
async function replayEntries(
  group: readonly NewOccurrence[],
  journal: OccurrenceJournal,
  store: Store,
  onRefused: (error: SchedError) => void,
): Promise<void> {
  try {
    await store.recordOccurrences([...group]);
  } catch (error) {
    if (!(error instanceof SchedError) || isStoreUnreachable(error)) throw error;
    if (group.length > 1) {
      for (const entry of group) await replayEntries([entry], journal, store, onRefused);
      return;
    }
    onRefused(error);
  }
  for (const entry of group) journal.remove(entry);
}

async function replayRun(
  { run }: JournaledRun,
  journal: RunJournal,
  store: Store,
  onRefused: (error: SchedError) => void,
): Promise<void> {
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
    if (entry?.outcome === null || entry?.outcome === undefined) return journal.markInStore(run.id);
    if (stored === null || stored.state === 'running')
      await writeEnd(store, run.id, entry.outcome, onRefused);
    journal.remove(run.id);
  } catch (error) {
    // A run the store refuses (its instant was stored under another id) would block every later one; a
    // store still out of reach (a peer's NO_QUORUM is a SchedError too) ends this replay, to be tried again.
    if (!(error instanceof SchedError) || isStoreUnreachable(error)) throw error;
    onRefused(error);
    journal.remove(run.id);
  }
}

/**
 * Writes a journaled end of a run the store's copy holds as running. A copy that is behind (a peer's log
 * applies the end a moment later) makes the write meet that end already there: it landed first, which is
 * what the replay wanted, and not a refusal to report.
 */
async function writeEnd(
  store: Store,
  runId: string,
  outcome: RunOutcome,
  onRefused: (error: SchedError) => void,
): Promise<void> {
  try {
    await store.finishRun(runId, outcome);
  } catch (error) {
    if (!(error instanceof SchedError) || isStoreUnreachable(error)) throw error;
    if (!endedAlready(error, outcome)) onRefused(error);
  }
}

function endedAlready(error: SchedError, outcome: RunOutcome): boolean {
  return error.code === 'INVALID_STATE' && error.details['state'] === outcome.state;
}

/** `replay` of each item, REPLAYED_TOGETHER at a time, in order; stops after a group in which one threw. */
async function inGroups<T>(items: readonly T[], replay: (item: T) => Promise<void>): Promise<number> {
  let done = 0;
  for (const group of groupsOf(items)) {
    const results = await Promise.allSettled(group.map(replay));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    done += group.length;
  }
  return done;
}

/** The items in order, REPLAYED_TOGETHER at a time. */
function groupsOf<T>(items: readonly T[]): T[][] {
  const groups: T[][] = [];
  for (let start = 0; start < items.length; start += REPLAYED_TOGETHER)
    groups.push(items.slice(start, start + REPLAYED_TOGETHER));
  return groups;
}
