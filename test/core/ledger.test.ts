import { describe, expect, it } from 'vitest';
import { overlapReason, passedOccurrenceRecord } from '../../src/core/ledger/reasons.js';
import { decideOverlap } from '../../src/core/policy/overlap.js';
import { nextOccurrence, occurrencesBetween, type DstPolicy } from '../../src/core/schedule/occurrences.js';

const ms = (iso: string): number => Date.parse(iso);
const cron = (expression: string) => ({ kind: 'cron' as const, expression });

describe('passedOccurrenceRecord for wall times the clocks skip', () => {
  const skip: DstPolicy = { gap: 'skip', repeat: 'first' };

  it.each([
    ['America/New_York', '30 2 * * *', '2026-03-08T05:00:00Z', '02:00', '03:00'],
    ['Europe/London', '30 1 * * *', '2026-03-29T00:00:00Z', '01:00', '02:00'],
    ['Australia/Lord_Howe', '15 2 * * *', '2026-10-03T13:00:00Z', '02:00', '02:30'],
  ])(
    'given %s and --dst-gap skip, records dst-skipped and names the jump',
    (zone, expression, from, jumpFrom, jumpTo) => {
      const { passed } = nextOccurrence(cron(expression), ms(from), zone, skip);
      expect(passedOccurrenceRecord(passed[0]!, skip, zone)).toEqual({
        outcome: 'dst-skipped',
        reason: `that wall time does not exist (the clocks jumped from ${jumpFrom} to ${jumpTo}) and the job is set to --dst-gap skip`,
      });
    },
  );
});

describe('passedOccurrenceRecord for wall times the clocks repeat', () => {
  it('given --dst-repeat first, records the second 01:30 as deduplicated and names the set-back', () => {
    const dst: DstPolicy = { gap: 'shift', repeat: 'first' };
    const { passed } = nextOccurrence(
      cron('30 1 * * *'),
      ms('2026-11-01T06:00:00Z'),
      'America/New_York',
      dst,
    );
    expect(passedOccurrenceRecord(passed[0]!, dst, 'America/New_York')).toEqual({
      outcome: 'deduplicated',
      reason:
        'it was the second 01:30 (the clocks went back from 02:00 to 01:00) and the job is set to --dst-repeat first, so only the first ran',
    });
  });

  it('given --dst-repeat last in Lord Howe, records the first 01:45 as deduplicated and names the half-hour set-back', () => {
    const dst: DstPolicy = { gap: 'shift', repeat: 'last' };
    const { passed } = nextOccurrence(
      cron('45 1 * * *'),
      ms('2026-04-04T13:00:00Z'),
      'Australia/Lord_Howe',
      dst,
    );
    expect(passedOccurrenceRecord(passed[0]!, dst, 'Australia/Lord_Howe')).toEqual({
      outcome: 'deduplicated',
      reason:
        'it was the first of two 01:45s (the clocks went back from 02:00 to 01:30) and the job is set to --dst-repeat last, so only the second runs',
    });
  });

  it('given an occurrence that fires, returns null', () => {
    const dst: DstPolicy = { gap: 'shift', repeat: 'both' };
    const { items } = occurrencesBetween(
      cron('30 1 * * *'),
      ms('2026-11-01T04:00:00Z'),
      ms('2026-11-01T08:00:00Z'),
      'America/New_York',
      dst,
      5,
    );
    expect(items.map((o) => passedOccurrenceRecord(o, dst, 'America/New_York'))).toEqual([null, null]);
  });
});

describe('overlapReason', () => {
  it('given forbid and one running run, names the run and the policy', () => {
    const state = { runningRunIds: ['01ab'], queuedRunId: null };
    expect(overlapReason('forbid', decideOverlap('forbid', state), state)).toBe(
      'run 01ab was still running (--concurrency forbid)',
    );
  });

  it('given several running runs, names them all', () => {
    const state = { runningRunIds: ['r1', 'r2', 'r3'], queuedRunId: null };
    expect(overlapReason('forbid', { action: 'skip', reason: 'overlap' }, state)).toBe(
      'runs r1, r2 and r3 were still running (--concurrency forbid)',
    );
  });

  it('given queue and a run already waiting, names the running and the waiting run', () => {
    const state = { runningRunIds: ['r1'], queuedRunId: 'r2' };
    expect(overlapReason('queue', decideOverlap('queue', state), state)).toBe(
      'run r1 was still running and run r2 was already waiting (--concurrency queue keeps at most one waiting)',
    );
  });

  it('given a decision that runs the instant, returns null', () => {
    const state = { runningRunIds: ['r1'], queuedRunId: null };
    expect(overlapReason('replace', decideOverlap('replace', state), state)).toBeNull();
  });
});
