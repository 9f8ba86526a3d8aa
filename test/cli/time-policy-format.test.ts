import { describe, expect, it } from 'vitest';
import { renderBackfill } from '../../src/cli/format/backfill.js';
import { renderJobDetail } from '../../src/cli/format/job-detail.js';
import { renderLedgerTable, runsText } from '../../src/cli/format/ledger-list.js';
import { describeNextRun } from '../../src/cli/format/next-run.js';
import { formatOccurrenceLines, startText } from '../../src/cli/format/occurrence-line.js';
import {
  describeDependencies,
  describeTimePolicy,
  formatSpreadOffset,
  type UpstreamRef,
} from '../../src/cli/format/time-policy.js';
import { lookUpUpstreams, upstreamIds } from '../../src/cli/upstream-lookup.js';
import { SchedError } from '../../src/core/errors.js';
import { DEFAULT_TIME_POLICY, type Job, type TimePolicy } from '../../src/core/job.js';
import { normalizeJobInput } from '../../src/core/normalize.js';
import type { LedgerEntry } from '../../src/core/ledger/entry.js';
import { spreadOffsetMs } from '../../src/core/policy/spread.js';
import type { BackfillResult } from '../../src/ipc/protocol.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const NY = 'America/New_York';

/** A stored job, normalized (so fields added to the model later get their defaults), then changed. */
function jobWith(changes: Partial<Job>): Job {
  const definition = normalizeJobInput(
    { name: 'nightly', cron: '30 2 * * *', timezone: NY, argv: ['./backup.sh'] },
    { now: NOW, defaultTimezone: 'UTC' },
  );
  return {
    ...definition,
    id: 'job-1',
    state: 'active',
    version: 1,
    owner: 'alice',
    createdAt: NOW,
    updatedAt: NOW,
    deletedAt: null,
    nextRunAt: null,
    ...changes,
  };
}

function policy(changes: Partial<TimePolicy>): TimePolicy {
  return { ...DEFAULT_TIME_POLICY, ...changes };
}

describe('describeTimePolicy', () => {
  it('given the default policy, when described, then it is a single "defaults" line', () => {
    expect(describeTimePolicy(DEFAULT_TIME_POLICY, 'job-1')).toEqual([['Time policy', 'defaults']]);
  });

  it('given only a different overlap policy, when described, then only that line shows, with its flag', () => {
    expect(describeTimePolicy(policy({ concurrency: 'queue' }), 'job-1')).toEqual([
      [
        'Overlap',
        'an instant that comes due waits for the running run to end (at most one waits)  (--concurrency queue)',
      ],
    ]);
  });

  it('given count:3 within 2h and skip-if-next-within 10m, when described, then the missed-runs line says all three', () => {
    const misfire = {
      policy: { kind: 'count' as const, count: 3 },
      catchupWindowMs: 7_200_000,
      skipIfNextWithinMs: 600_000,
    };
    expect(describeTimePolicy(policy({ misfire }), 'job-1')).toEqual([
      [
        'Missed runs',
        'the newest 3 run, oldest first, if at most 2h late; none when the next run is due within 10m  ' +
          '(--misfire count:3 --catchup-window 2h --skip-if-next-within 10m)',
      ],
    ]);
  });

  it('given --misfire skip, when described, then it says skipped without a window that would not matter', () => {
    const misfire = { ...DEFAULT_TIME_POLICY.misfire, policy: { kind: 'skip' as const } };
    expect(describeTimePolicy(policy({ misfire }), 'job-1')).toEqual([
      ['Missed runs', 'skipped  (--misfire skip)'],
    ]);
  });

  it('given only a longer catch-up window, when described, then the default misfire policy is spelt out with it', () => {
    const misfire = { ...DEFAULT_TIME_POLICY.misfire, catchupWindowMs: 21_600_000 };
    expect(describeTimePolicy(policy({ misfire }), 'job-1')).toEqual([
      ['Missed runs', 'the newest runs once, if at most 6h late  (--misfire latest --catchup-window 6h)'],
    ]);
  });

  it('given gap=skip and repeat=both, when described, then one DST line names both settings', () => {
    expect(describeTimePolicy(policy({ dst: { gap: 'skip', repeat: 'both' } }), 'job-1')).toEqual([
      [
        'DST',
        'a wall time the clocks skip does not run; a repeated one runs at both  (--dst-gap skip --dst-repeat both)',
      ],
    ]);
  });

  it("given a spread and a jitter, when described, then the spread line shows this job's own fixed offset", () => {
    const offset = spreadOffsetMs('job-1', 300_000);
    expect(describeTimePolicy(policy({ spreadMs: 300_000, jitterMs: 30_000 }), 'job-1')).toEqual([
      [
        'Spread',
        `starts ${formatSpreadOffset(offset)} after each instant, a fixed offset within 5m  (--spread 5m)`,
      ],
      ['Jitter', 'each instant waits a fresh random delay of up to 30s  (--jitter 30s)'],
    ]);
  });
});

describe('formatSpreadOffset', () => {
  it('given an offset with milliseconds, when formatted, then it is cut to whole seconds like the start time', () => {
    expect(formatSpreadOffset(27_504)).toBe('27s');
    expect(formatSpreadOffset(133_999)).toBe('2m13s');
  });

  it('given an offset under a second, when formatted, then it stays in milliseconds', () => {
    expect(formatSpreadOffset(450)).toBe('450ms');
  });
});

describe('describeDependencies', () => {
  const upstreams = new Map<string, UpstreamRef>([
    ['id-backup', { id: 'id-backup', name: 'backup', state: 'active' }],
    ['id-lint', { id: 'id-lint', name: 'lint', state: 'cancelled' }],
    ['id-gone', { id: 'id-gone', name: null, state: null }],
  ]);

  it('given --after links, when described, then each upstream is named with how it must end', () => {
    const job = {
      after: [
        { job: 'id-backup', on: 'success' as const },
        { job: 'id-lint', on: 'failure' as const },
        { job: 'id-gone', on: 'always' as const },
      ],
      afterAll: [],
    };
    expect(describeDependencies(job, upstreams)).toEqual([
      [
        'Runs after',
        'backup succeeds, or lint (cancelled) fails, or id-gone (no longer exists) ends, either way',
      ],
    ]);
  });

  it('given --after-all upstreams, when described, then they are listed by name as a set to succeed', () => {
    expect(describeDependencies({ after: [], afterAll: ['id-backup', 'id-lint'] }, upstreams)).toEqual([
      ['Runs after all', 'backup and lint (cancelled) have each succeeded since its last run'],
    ]);
  });

  it('given no dependencies, when described, then there are no lines', () => {
    expect(describeDependencies({ after: [], afterAll: [] }, upstreams)).toEqual([]);
  });
});

describe('renderJobDetail with a time policy and dependencies', () => {
  it('given a dependency-only job, when rendered, then the schedule says so and upstreams show by name', () => {
    const job = jobWith({
      schedule: { kind: 'none' },
      after: [{ job: 'id-backup', on: 'success' }],
      policy: policy({ concurrency: 'allow' }),
    });
    const upstreams = new Map([['id-backup', { id: 'id-backup', name: 'backup', state: 'active' as const }]]);
    const plain = renderJobDetail(
      { job, upcoming: [], recentRuns: [], breaker: null },
      { zone: 'UTC', now: NOW },
      () => 'unused',
      upstreams,
    ).replace(new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g'), '');
    expect(plain).toMatch(/^Schedule: +none of its own: runs after other jobs, or when triggered$/m);
    expect(plain).toMatch(/^Runs after: +backup succeeds$/m);
    expect(plain).toMatch(/^Overlap: +runs side by side .*\(--concurrency allow\)$/m);
    expect(plain).not.toContain('id-backup');
  });
});

describe('describeNextRun', () => {
  it('given an active job with no schedule of its own, when described, then it says it follows other jobs', () => {
    expect(describeNextRun(jobWith({ schedule: { kind: 'none' } }), { zone: 'UTC', now: NOW })).toBe(
      'it runs when the jobs it follows finish',
    );
  });
});

describe('upstream lookup', () => {
  it('given after and after-all naming the same job, when listed, then each id appears once', () => {
    expect(
      upstreamIds({
        after: [
          { job: 'a', on: 'success' },
          { job: 'b', on: 'failure' },
        ],
        afterAll: ['b', 'c'],
      }),
    ).toEqual(['a', 'b', 'c']);
  });

  it('given one upstream that is gone, when looked up, then it gets a null name and the others their names', async () => {
    const refs = await lookUpUpstreams(['a', 'gone'], async (id) => {
      if (id === 'gone') throw new SchedError('JOB_NOT_FOUND', 'No job "gone".');
      return jobWith({ id, name: 'alpha', state: 'paused' });
    });
    expect([...refs.values()]).toEqual([
      { id: 'a', name: 'alpha', state: 'paused' },
      { id: 'gone', name: null, state: null },
    ]);
  });

  it('given a lookup that fails for another reason, when looked up, then the failure is not hidden', async () => {
    await expect(
      lookUpUpstreams(['a'], async () => {
        throw new SchedError('DAEMON_UNAVAILABLE', 'down');
      }),
    ).rejects.toMatchObject({ code: 'DAEMON_UNAVAILABLE' });
  });
});

describe('occurrence lines of sched next', () => {
  const at = Date.parse('2026-03-07T07:30:00Z');
  const plain = { at, wall: '2026-03-07T02:30:00', fires: true, skipped: false, explanation: null };
  const noShift = { spreadOffsetMs: null, jitterMs: null };

  it('given a plain firing instant and no spread or jitter, when formatted, then it is the classic single line', () => {
    expect(formatOccurrenceLines(plain, NY, noShift)).toEqual([
      'Sat 2026-03-07 02:30 EST (-05:00)  2026-03-07T07:30:00Z',
    ]);
  });

  it('given a spread offset, when formatted, then the line shows the planned start and the offset', () => {
    expect(startText(at, NY, { spreadOffsetMs: 133_456, jitterMs: null })).toBe(
      '  starts 02:32:13 (+2m13s spread)',
    );
  });

  it('given a jitter only, when formatted, then the line says how much later it may start', () => {
    expect(startText(at, NY, { spreadOffsetMs: null, jitterMs: 30_000 })).toBe('  + up to 30s jitter');
  });

  it('given a spread and a jitter, when formatted, then both show, the jitter after the start', () => {
    expect(startText(at, NY, { spreadOffsetMs: 60_000, jitterMs: 30_000 })).toBe(
      '  starts 02:31:00 (+1m spread) + up to 30s jitter',
    );
  });

  it('given a spread that crosses midnight, when formatted, then the start carries its date', () => {
    const late = Date.parse('2026-03-07T04:59:00Z'); // 23:59 EST on the 6th
    expect(startText(late, NY, { spreadOffsetMs: 120_000, jitterMs: null })).toBe(
      '  starts 2026-03-07 00:01:00 (+2m spread)',
    );
  });

  it('given a wall time the clocks skipped, when formatted, then it shows that wall time as not run, with no spread', () => {
    const skipped = {
      at: Date.parse('2026-03-08T07:00:00Z'),
      wall: '2026-03-08T02:30:00',
      fires: false,
      skipped: true,
      explanation: 'skipped: 02:30 does not exist on 2026-03-08 (--dst-gap skip)',
    };
    expect(formatOccurrenceLines(skipped, NY, { spreadOffsetMs: 60_000, jitterMs: null })).toEqual([
      'Sun 2026-03-08 02:30 (no such time)  not run',
      '  skipped: 02:30 does not exist on 2026-03-08 (--dst-gap skip)',
    ]);
  });
});

function entry(changes: Partial<LedgerEntry>): LedgerEntry {
  return {
    jobId: 'job-1',
    jobName: 'nightly',
    scheduledFor: Date.parse('2026-03-09T06:30:00Z'),
    outcome: 'ran',
    reason: '',
    node: 'n1',
    decidedAt: NOW,
    runIds: [],
    finalState: null,
    ...changes,
  };
}

describe('renderLedgerTable', () => {
  it('given entries, when rendered, then instants are in the job zone with outcome codes, runs and reasons', () => {
    const table = renderLedgerTable(
      [
        entry({ runIds: ['r1'], finalState: 'succeeded' }),
        entry({
          scheduledFor: Date.parse('2026-03-08T07:00:00Z'),
          wall: '2026-03-08T02:30:00',
          outcome: 'dst-skipped',
          reason: 'that wall time does not exist',
        }),
      ],
      NY,
    );
    expect(table.split('\n')).toEqual([
      'DUE (America/New_York)              OUTCOME      RUNS          WHY',
      '2026-03-09 02:30:00 EDT             ran          r1 succeeded  -',
      '2026-03-08 02:30:00 (no such time)  dst-skipped  -             that wall time does not exist',
    ]);
  });

  it('given an instant whose run still runs, when its runs are described, then it says running', () => {
    expect(runsText({ runIds: ['r1', 'r2'], finalState: null })).toBe('r1, r2 running');
    expect(runsText({ runIds: ['r1'], finalState: null, waiting: true })).toBe('r1 waiting');
    expect(runsText({ runIds: ['r1'], finalState: 'timed_out' })).toBe('r1 timed out');
  });
});

describe('renderBackfill', () => {
  const job = jobWith({ policy: policy({ dst: { gap: 'skip', repeat: 'first' } }) });
  const base: BackfillResult = {
    job,
    dryRun: true,
    from: Date.parse('2026-03-07T05:00:00Z'),
    to: Date.parse('2026-03-09T04:00:00Z'),
    instants: [
      {
        scheduledFor: Date.parse('2026-03-07T07:30:00Z'),
        wall: '2026-03-07T02:30:00',
        note: null,
        action: 'run',
        runId: null,
      },
      {
        scheduledFor: Date.parse('2026-03-08T07:00:00Z'),
        wall: '2026-03-08T02:30:00',
        note: { kind: 'skipped' },
        action: 'dst-skipped',
        runId: null,
      },
    ],
    created: 0,
    order: 'serial',
  };

  it('given a dry run, when rendered, then each instant shows what would happen and the skipped one why', () => {
    expect(renderBackfill(base).split('\n')).toEqual([
      'Dry run: nightly was due 2 times from 2026-03-07 00:00:00 EST to 2026-03-09 00:00:00 EDT; 1 would run. ' +
        'Of the others, 1 is passed over by a clock change.',
      '',
      'DUE (America/New_York)              UTC                   ACTION                      NOTE',
      '2026-03-07 02:30:00 EST             2026-03-07T07:30:00Z  would run',
      '2026-03-08 02:30:00 (no such time)  2026-03-08T07:00:00Z  not run: no such wall time  skipped: 02:30 does not exist on 2026-03-08 (--dst-gap skip)',
    ]);
  });

  it('given a real run that made several runs one after another, when rendered, then it says how many and how they run', () => {
    const result: BackfillResult = {
      ...base,
      dryRun: false,
      instants: [0, 1, 2].map((day) => ({
        scheduledFor: Date.parse('2026-03-09T06:30:00Z') + day * 86_400_000,
        wall: '',
        note: null,
        action: 'run' as const,
        runId: `r${day}`,
      })),
      created: 3,
      order: 'serial',
    };
    expect(renderBackfill(result)).toBe(
      'Created 3 runs of nightly for 3 instants from 2026-03-07 00:00:00 EST to 2026-03-09 00:00:00 EDT; ' +
        'they run one after another, oldest first (--concurrency forbid).',
    );
  });

  it('given a parallel backfill, when rendered, then it says they run all at once', () => {
    const result: BackfillResult = {
      ...base,
      job: jobWith({ policy: policy({ concurrency: 'allow' }) }),
      dryRun: false,
      instants: [
        base.instants[0]!,
        { ...base.instants[0]!, scheduledFor: base.instants[0]!.scheduledFor + 1 },
      ],
      created: 2,
      order: 'parallel',
    };
    expect(renderBackfill(result)).toMatch(/; they run all at once \(--concurrency allow\)\.$/);
  });

  it('given a range with no instants, when rendered, then it says nothing was due', () => {
    expect(renderBackfill({ ...base, instants: [] })).toBe(
      'nightly was not due from 2026-03-07 00:00:00 EST to 2026-03-09 00:00:00 EDT; nothing to run.',
    );
  });
});
