import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/core/ledger/entry.js';
import { mergeLedger } from '../../src/core/ledger/merge.js';
import type { RunSummary } from '../../src/core/run.js';

const T = Date.parse('2026-06-01T10:00:00Z');

function run(
  id: string,
  scheduledFor: number,
  attempt: number,
  state: RunSummary['state'],
  trigger: RunSummary['trigger'] = 'schedule',
): RunSummary {
  return {
    id,
    jobId: 'j',
    jobName: 'job',
    scheduledFor,
    attempt,
    trigger,
    state,
    node: 'n1',
    fence: 1,
    createdAt: scheduledFor + attempt,
    startedAt: scheduledFor,
    finishedAt: null,
    pid: null,
    exitCode: null,
    httpStatus: null,
    signal: null,
    error: null,
    retriedBy: null,
    dueAt: scheduledFor,
  };
}

function record(scheduledFor: number, outcome: LedgerEntry['outcome'], reason: string): LedgerEntry {
  return {
    jobId: 'j',
    jobName: 'job',
    scheduledFor,
    outcome,
    reason,
    node: 'n2',
    decidedAt: T,
    runIds: [],
    finalState: null,
  };
}

describe('mergeLedger', () => {
  it('makes one ran entry per instant from its attempts, with the last attempt deciding the final state', () => {
    const entries = mergeLedger([], [run('r1', T, 1, 'failed'), run('r2', T, 2, 'succeeded')]);
    expect(entries).toEqual([
      expect.objectContaining({
        scheduledFor: T,
        outcome: 'ran',
        runIds: ['r1', 'r2'],
        finalState: 'succeeded',
        reason: '',
      }),
    ]);
  });

  it('leaves the final state null while the last attempt runs or waits', () => {
    expect(
      mergeLedger([], [run('r1', T, 1, 'failed'), run('r2', T, 2, 'scheduled')])[0]!.finalState,
    ).toBeNull();
  });

  it('marks an instant whose last run has not started yet as waiting, and one that runs as not', () => {
    const [waiting] = mergeLedger([], [run('r1', T, 1, 'scheduled')]);
    const [running] = mergeLedger([], [run('r2', T, 1, 'running')]);
    expect(waiting).toMatchObject({ finalState: null, waiting: true });
    expect(running).toMatchObject({ finalState: null, waiting: false });
  });

  it('joins a recorded ran entry (a catch-up reason) to its runs and keeps skipped records apart, newest first', () => {
    const entries = mergeLedger(
      [record(T, 'missed-while-down', 'down'), record(T + 1_000, 'ran', 'caught up')],
      [run('r3', T + 1_000, 1, 'succeeded', 'catchup'), run('r4', T + 2_000, 1, 'running', 'manual')],
    );
    expect(entries.map((entry) => [entry.scheduledFor - T, entry.outcome, entry.reason])).toEqual([
      [2_000, 'ran', 'someone ran it by hand (sched trigger)'],
      [1_000, 'ran', 'caught up'],
      [0, 'missed-while-down', 'down'],
    ]);
    expect(entries[1]!.runIds).toEqual(['r3']);
    expect(entries[1]!.node).toBe('n2');
  });

  it('orders oldest first on request', () => {
    const entries = mergeLedger([record(T + 5, 'paused', 'p')], [run('r1', T, 1, 'succeeded')], 'asc');
    expect(entries.map((entry) => entry.scheduledFor)).toEqual([T, T + 5]);
  });
});
