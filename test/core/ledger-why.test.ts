import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/core/ledger/entry.js';
import { explainWhy } from '../../src/core/ledger/why.js';
import type { RunSummary } from '../../src/core/run.js';

const ms = (iso: string): number => Date.parse(iso);
const NY = 'America/New_York';
const now = ms('2026-03-10T12:00:00Z');

function entry(overrides: Partial<LedgerEntry>): LedgerEntry {
  return {
    jobId: 'job-1',
    jobName: 'nightly',
    scheduledFor: ms('2026-03-09T07:00:00Z'), // 03:00 EDT
    outcome: 'ran',
    reason: '',
    node: 'vm',
    decidedAt: ms('2026-03-09T07:00:00Z'),
    runIds: [],
    finalState: null,
    ...overrides,
  };
}

function run(overrides: Partial<RunSummary>): RunSummary {
  const scheduledFor = ms('2026-03-09T07:00:00Z');
  return {
    id: 'run-1',
    jobId: 'job-1',
    jobName: 'nightly',
    scheduledFor,
    attempt: 1,
    trigger: 'schedule',
    state: 'succeeded',
    node: 'vm',
    fence: 1,
    createdAt: scheduledFor,
    startedAt: scheduledFor + 4,
    finishedAt: scheduledFor + 2_104,
    pid: 100,
    exitCode: 0,
    httpStatus: null,
    signal: null,
    error: null,
    retriedBy: null,
    dueAt: scheduledFor,
    ...overrides,
  };
}

describe('explainWhy for each outcome', () => {
  it('given a run that succeeded, says when it started, which attempt and how long it took', () => {
    const ran = entry({ runIds: ['run-1'], finalState: 'succeeded' });
    expect(explainWhy([ran], null, NY, now, { runs: [run({})] })).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York and ran at 03:00:00.004 (attempt 1 succeeded in 2.1s); decided by node vm.',
    );
  });

  it('given a run that succeeded on a retry, names the final attempt and the earlier ones', () => {
    const ran = entry({ runIds: ['run-1', 'run-2'], finalState: 'succeeded' });
    const runs = [
      run({ id: 'run-1', state: 'failed', finishedAt: ms('2026-03-09T07:00:01Z') }),
      run({
        id: 'run-2',
        attempt: 2,
        startedAt: ms('2026-03-09T07:00:11Z'),
        finishedAt: ms('2026-03-09T07:03:31Z'),
      }),
    ];
    expect(explainWhy([ran], null, NY, now, { runs })).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York and ran at 03:00:00.004 (attempt 2 succeeded in 3m20s; 1 earlier attempt did not succeed); decided by node vm.',
    );
  });

  it('given a run still running, says when it started and for how long it has run', () => {
    const ran = entry({ runIds: ['run-1'] });
    const started = run({ state: 'running', finishedAt: null });
    expect(explainWhy([ran], null, NY, ms('2026-03-09T07:05:00.004Z'), { runs: [started] })).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York and started at 03:00:00.004 (attempt 1 has been running for 5m); decided by node vm.',
    );
  });

  it('given a run that timed out, says so', () => {
    const ran = entry({ runIds: ['run-1'], finalState: 'timed_out' });
    expect(
      explainWhy([ran], null, NY, now, {
        runs: [run({ state: 'timed_out', finishedAt: ms('2026-03-09T07:30:00.004Z') })],
      }),
    ).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York and ran at 03:00:00.004 (attempt 1 timed out after 30m); decided by node vm.',
    );
  });

  it('given no run details, names the run ids and how they ended', () => {
    const ran = entry({ runIds: ['run-1'], finalState: 'timed_out' });
    expect(explainWhy([ran], null, NY, now)).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York and ran as run run-1, which ended timed out; decided by node vm.',
    );
  });

  it('given a ran entry with a reason, gives the reason', () => {
    const ran = entry({
      reason: 'it was the latest instant missed while the scheduler was not running (--misfire latest)',
    });
    expect(explainWhy([ran], null, NY, now)).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York and ran because it was the latest instant missed while the scheduler was not running (--misfire latest); decided by node vm.',
    );
  });

  it('given an every-host instant that two nodes skipped and a third ran, tells the instant once and what each node did', () => {
    const skippedOn = (node: string, run: string) =>
      entry({
        outcome: 'skipped-overlap',
        node,
        host: node,
        reason: `on node ${node}: run ${run} was still running (--concurrency forbid)`,
      });
    const ran = entry({ node: 'c', runIds: ['r3'], finalState: 'succeeded' });

    expect(explainWhy([skippedOn('b', '02bb'), ran, skippedOn('a', '01aa')], null, NY, now)).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York: ' +
        'it ran as run r3, which ended succeeded (decided by node c); ' +
        'on node a it was skipped because run 01aa was still running (--concurrency forbid); ' +
        'on node b it was skipped because run 02bb was still running (--concurrency forbid).',
    );
  });

  it('given an instant skipped for overlap, says which run was still running', () => {
    const skipped = entry({
      outcome: 'skipped-overlap',
      reason: 'run 01ab was still running (--concurrency forbid)',
    });
    expect(explainWhy([skipped], null, NY, now)).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York and was skipped because run 01ab was still running (--concurrency forbid); decided by node vm.',
    );
  });

  it('given an instant missed while the store could not be reached, says a job of one node waits for the store', () => {
    const missed = entry({ outcome: 'store-unreachable', reason: '' });
    expect(explainWhy([missed], null, NY, now)).toBe(
      'nightly was due at 2026-03-09 03:00 America/New_York and did not run: it fell due while the store could not be reached, and a job that runs on one node does not fire without it; decided by node vm.',
    );
  });

  it('given a wall time the clocks skipped, shows that wall time rather than the jump instant', () => {
    const skipped = entry({
      scheduledFor: ms('2026-03-08T07:00:00Z'),
      wall: '2026-03-08T02:30:00',
      outcome: 'dst-skipped',
      reason:
        'that wall time does not exist (the clocks jumped from 02:00 to 03:00) and the job is set to --dst-gap skip',
    });
    expect(explainWhy([skipped], ms('2026-03-08T07:00:00Z'), NY, now)).toBe(
      'nightly was due at 2026-03-08 02:30 America/New_York and did not run: that wall time does not exist (the clocks jumped from 02:00 to 03:00) and the job is set to --dst-gap skip; decided by node vm.',
    );
  });

  it('given a deduplicated repeat, marks the repeated wall time with its abbreviation', () => {
    const repeat = entry({
      scheduledFor: ms('2026-11-01T06:30:00Z'),
      outcome: 'deduplicated',
      reason: 'it was the second 01:30',
    });
    expect(explainWhy([repeat], null, NY, now)).toBe(
      'nightly was due at 2026-11-01 01:30 EST America/New_York and did not run: it was the second 01:30; decided by node vm.',
    );
  });

  it.each([
    ['missed-while-down', 'it fell due while the scheduler was not running'],
    [
      'outside-catchup-window',
      'it fell due while the scheduler was not running, outside the catch-up window',
    ],
    ['paused', 'the job was paused'],
  ] as const)('given %s with no recorded reason, falls back to a default reason', (outcome, reason) => {
    expect(explainWhy([entry({ outcome })], null, NY, now)).toBe(
      `nightly was due at 2026-03-09 03:00 America/New_York and did not run: ${reason}; decided by node vm.`,
    );
  });
});

describe('explainWhy: which instant', () => {
  const monday = entry({
    scheduledFor: ms('2026-03-09T07:00:00Z'),
    outcome: 'ran',
    runIds: ['r1'],
    finalState: 'succeeded',
  });
  const tuesday = entry({
    scheduledFor: ms('2026-03-10T07:00:00Z'),
    outcome: 'skipped-overlap',
    reason: 'run r1 was still running (--concurrency forbid)',
  });

  it('given no --at, explains the latest instant', () => {
    expect(explainWhy([tuesday, monday], null, NY, now)).toContain('due at 2026-03-10 03:00');
  });

  it('given --at a little off an instant, explains that instant', () => {
    expect(explainWhy([monday, tuesday], ms('2026-03-09T07:00:30Z'), NY, now)).toContain(
      'due at 2026-03-09 03:00',
    );
  });

  it('given --at far from any instant, says nothing was due and names the nearest before and after', () => {
    expect(explainWhy([monday, tuesday], ms('2026-03-09T16:00:00Z'), NY, now)).toBe(
      'nightly was not due at 2026-03-09 12:00 America/New_York; the nearest recorded instants are 2026-03-09 03:00 America/New_York (ran) and 2026-03-10 03:00 America/New_York (skipped for overlap).',
    );
  });

  it('given --at after every instant, names the last one only', () => {
    expect(explainWhy([monday], ms('2026-03-09T16:00:00Z'), NY, now)).toBe(
      'nightly was not due at 2026-03-09 12:00 America/New_York; the nearest recorded instant is 2026-03-09 03:00 America/New_York (ran).',
    );
  });

  it('given --at in the future, says so', () => {
    expect(explainWhy([monday], ms('2026-03-12T16:00:00Z'), NY, now)).toContain(
      '(that is still in the future)',
    );
  });

  it('given a wider tolerance, takes an instant further off as the one asked about', () => {
    expect(explainWhy([monday], ms('2026-03-09T07:30:00Z'), NY, now, { toleranceMs: 3_600_000 })).toContain(
      'was due at 2026-03-09 03:00',
    );
  });

  it('given no entries, says nothing has been recorded', () => {
    expect(explainWhy([], null, NY, now)).toBe(
      'No instant of this job has been recorded yet, so there is nothing to explain.',
    );
  });

  it('given no entries and --at, names the time asked about', () => {
    expect(explainWhy([], ms('2026-03-09T07:00:00Z'), NY, now)).toBe(
      'Nothing was recorded for this job at 2026-03-09 03:00 America/New_York; no instant of it has been recorded yet.',
    );
  });
});

describe('explainWhy: bad input', () => {
  it('given an unknown time zone, throws UNKNOWN_TIMEZONE', () => {
    expect(() => explainWhy([entry({})], null, 'Mars/Olympus', now)).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_TIMEZONE' }),
    );
  });
});

describe('explainWhy: several records at one instant', () => {
  const jump = ms('2026-03-08T07:00:00Z');
  const skipped = entry({
    scheduledFor: jump,
    wall: '2026-03-08T02:00:00',
    outcome: 'dst-skipped',
    reason: 'that wall time does not exist',
  });
  const ran = entry({ scheduledFor: jump, outcome: 'ran', runIds: ['r9'], finalState: 'succeeded' });

  it('given a skipped wall time and a run at the same jump instant, explains both in one sentence', () => {
    expect(explainWhy([ran, skipped], jump, NY, now)).toBe(
      'nightly was due at 2026-03-08 02:00 America/New_York and did not run: that wall time does not exist; ' +
        'nightly was due at 2026-03-08 03:00 America/New_York and ran as run r9, which ended succeeded; decided by node vm.',
    );
  });

  it('given records decided by different nodes, names each node', () => {
    expect(
      explainWhy(
        [
          { ...ran, node: 'b' },
          { ...skipped, node: 'a' },
        ],
        jump,
        NY,
        now,
      ),
    ).toMatch(/\(decided by node a\); .*\(decided by node b\)\.$/);
  });
});
