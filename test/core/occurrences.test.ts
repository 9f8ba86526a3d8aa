import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/core/job.js';
import {
  DEFAULT_DST_POLICY,
  nextFireAt,
  nextOccurrence,
  occurrencesBetween,
  type DstPolicy,
  type ListedOccurrence,
  type Occurrence,
} from '../../src/core/schedule/occurrences.js';

const ms = (iso: string): number => Date.parse(iso);
const cron = (expression: string): Schedule => ({ kind: 'cron', expression });
const policy = (gap: DstPolicy['gap'], repeat: DstPolicy['repeat']): DstPolicy => ({ gap, repeat });

/** `2026-03-08T03:00:00-04:00 shifted from 02:30`: the instant as the zone shows it, and the note. */
function describeOccurrence(o: Occurrence, zone: string): string {
  const local = DateTime.fromMillis(o.at, { zone }).toISO({ suppressMilliseconds: true }) ?? '';
  const note = o.note;
  if (note === null) return local;
  if (note.kind === 'shifted') return `${local} shifted from ${note.from.slice(11, 16)}`;
  if (note.kind === 'skipped') return `${local} skipped ${o.wall.slice(11, 16)}`;
  return `${local} repeated ${note.occurrence}`;
}

function listing(items: ListedOccurrence[], zone: string): string[] {
  return items.map((item) => `${describeOccurrence(item, zone)}${item.fires ? '' : ' (not run)'}`);
}

interface TransitionCase {
  zone: string;
  expression: string;
  from: string;
  to: string;
}

const SPRING: Record<string, TransitionCase> = {
  'America/New_York 2026-03-08 (02:00 EST -> 03:00 EDT), job at 02:30': {
    zone: 'America/New_York',
    expression: '30 2 * * *',
    from: '2026-03-08T05:00:00Z',
    to: '2026-03-09T12:00:00Z',
  },
  'Europe/London 2026-03-29 (01:00 GMT -> 02:00 BST), job at 01:30': {
    zone: 'Europe/London',
    expression: '30 1 * * *',
    from: '2026-03-29T00:00:00Z',
    to: '2026-03-30T12:00:00Z',
  },
  'Australia/Lord_Howe 2026-10-04 (02:00 +10:30 -> 02:30 +11), job at 02:15': {
    zone: 'Australia/Lord_Howe',
    expression: '15 2 * * *',
    from: '2026-10-03T13:00:00Z',
    to: '2026-10-05T01:00:00Z',
  },
};

const SPRING_EXPECTED: Record<string, Record<DstPolicy['gap'], string[]>> = {
  'America/New_York': {
    shift: ['2026-03-08T03:00:00-04:00 shifted from 02:30', '2026-03-09T02:30:00-04:00'],
    skip: ['2026-03-08T03:00:00-04:00 skipped 02:30 (not run)', '2026-03-09T02:30:00-04:00'],
  },
  'Europe/London': {
    shift: ['2026-03-29T02:00:00+01:00 shifted from 01:30', '2026-03-30T01:30:00+01:00'],
    skip: ['2026-03-29T02:00:00+01:00 skipped 01:30 (not run)', '2026-03-30T01:30:00+01:00'],
  },
  'Australia/Lord_Howe': {
    shift: ['2026-10-04T02:30:00+11:00 shifted from 02:15', '2026-10-05T02:15:00+11:00'],
    skip: ['2026-10-04T02:30:00+11:00 skipped 02:15 (not run)', '2026-10-05T02:15:00+11:00'],
  },
};

describe('occurrencesBetween where the clocks spring forward', () => {
  for (const [title, { zone, expression, from, to }] of Object.entries(SPRING)) {
    it.each(['shift', 'skip'] as const)(
      `given ${title} and --dst-gap %s, lists the day as declared`,
      (gap) => {
        const { items } = occurrencesBetween(
          cron(expression),
          ms(from),
          ms(to),
          zone,
          policy(gap, 'first'),
          10,
        );
        expect(listing(items, zone)).toEqual(SPRING_EXPECTED[zone]?.[gap]);
      },
    );
  }
});

const FALL: Record<string, TransitionCase> = {
  'America/New_York 2026-11-01 (02:00 EDT -> 01:00 EST), job at 01:30': {
    zone: 'America/New_York',
    expression: '30 1 * * *',
    from: '2026-11-01T04:00:00Z',
    to: '2026-11-02T04:00:00Z',
  },
  'Europe/London 2026-10-25 (02:00 BST -> 01:00 GMT), job at 01:30': {
    zone: 'Europe/London',
    expression: '30 1 * * *',
    from: '2026-10-24T23:00:00Z',
    to: '2026-10-25T23:00:00Z',
  },
  'Australia/Lord_Howe 2026-04-05 (02:00 +11 -> 01:30 +10:30), job at 01:45': {
    zone: 'Australia/Lord_Howe',
    expression: '45 1 * * *',
    from: '2026-04-04T13:00:00Z',
    to: '2026-04-05T13:00:00Z',
  },
};

const FALL_INSTANTS: Record<string, [string, string]> = {
  'America/New_York': ['2026-11-01T01:30:00-04:00', '2026-11-01T01:30:00-05:00'],
  'Europe/London': ['2026-10-25T01:30:00+01:00', '2026-10-25T01:30:00+00:00'],
  'Australia/Lord_Howe': ['2026-04-05T01:45:00+11:00', '2026-04-05T01:45:00+10:30'],
};

describe('occurrencesBetween where the clocks fall back', () => {
  for (const [title, { zone, expression, from, to }] of Object.entries(FALL)) {
    const [first = '', second = ''] = FALL_INSTANTS[zone] ?? [];
    it(`given ${title} and --dst-repeat first, runs the first and passes over the second`, () => {
      const { items } = occurrencesBetween(
        cron(expression),
        ms(from),
        ms(to),
        zone,
        policy('shift', 'first'),
        10,
      );
      expect(listing(items, zone)).toEqual([
        `${first} repeated first`,
        `${second} repeated second (not run)`,
      ]);
    });

    it(`given ${title} and --dst-repeat last, passes over the first and runs the second`, () => {
      const { items } = occurrencesBetween(
        cron(expression),
        ms(from),
        ms(to),
        zone,
        policy('shift', 'last'),
        10,
      );
      expect(listing(items, zone)).toEqual([
        `${first} repeated first (not run)`,
        `${second} repeated second`,
      ]);
    });

    it(`given ${title} and --dst-repeat both, runs both`, () => {
      const { items } = occurrencesBetween(
        cron(expression),
        ms(from),
        ms(to),
        zone,
        policy('shift', 'both'),
        10,
      );
      expect(listing(items, zone)).toEqual([`${first} repeated first`, `${second} repeated second`]);
    });
  }
});

describe('nextOccurrence where the clocks spring forward', () => {
  const zone = 'America/New_York';
  const before = ms('2026-03-08T05:00:00Z');

  it('given --dst-gap shift, fires at the jump with the skipped wall time noted and passes nothing', () => {
    const { fire, passed } = nextOccurrence(cron('30 2 * * *'), before, zone, policy('shift', 'first'));
    expect(fire).toEqual({
      at: ms('2026-03-08T07:00:00Z'),
      wall: '2026-03-08T03:00:00',
      note: { kind: 'shifted', from: '2026-03-08T02:30:00' },
    });
    expect(passed).toEqual([]);
  });

  it('given --dst-gap skip, fires the next day and passes the nonexistent wall time at the jump instant', () => {
    const { fire, passed } = nextOccurrence(cron('30 2 * * *'), before, zone, policy('skip', 'first'));
    expect(fire?.at).toBe(ms('2026-03-09T06:30:00Z'));
    expect(passed).toEqual([
      { at: ms('2026-03-08T07:00:00Z'), wall: '2026-03-08T02:30:00', note: { kind: 'skipped' } },
    ]);
  });

  it('given several skipped wall times (02:00 and 02:30) and shift, runs once at the jump, noting the first', () => {
    const { items } = occurrencesBetween(
      cron('0,30 2 * * *'),
      before,
      ms('2026-03-08T12:00:00Z'),
      zone,
      DEFAULT_DST_POLICY,
      10,
    );
    expect(listing(items, zone)).toEqual(['2026-03-08T03:00:00-04:00 shifted from 02:00']);
  });

  it('given several skipped wall times and skip, records one skipped occurrence for the jump', () => {
    const { items } = occurrencesBetween(
      cron('0,30 2 * * *'),
      before,
      ms('2026-03-08T12:00:00Z'),
      zone,
      policy('skip', 'first'),
      10,
    );
    expect(listing(items, zone)).toEqual(['2026-03-08T03:00:00-04:00 skipped 02:00 (not run)']);
  });

  it('given a job at 02:30 and 03:00 and shift, runs 03:00 once, as the shifted 02:30', () => {
    const { items } = occurrencesBetween(
      cron('0,30 2,3 * * *'),
      before,
      ms('2026-03-08T07:59:00Z'),
      zone,
      DEFAULT_DST_POLICY,
      10,
    );
    expect(listing(items, zone)).toEqual([
      '2026-03-08T03:00:00-04:00 shifted from 02:00',
      '2026-03-08T03:30:00-04:00',
    ]);
  });

  it('given a job at 02:30 and 03:00 and skip, passes 02:00 and runs 03:00, both at the jump instant', () => {
    const { items } = occurrencesBetween(
      cron('0,30 2,3 * * *'),
      before,
      ms('2026-03-08T07:59:00Z'),
      zone,
      policy('skip', 'first'),
      10,
    );
    expect(listing(items, zone)).toEqual([
      '2026-03-08T03:00:00-04:00 skipped 02:00 (not run)',
      '2026-03-08T03:00:00-04:00',
      '2026-03-08T03:30:00-04:00',
    ]);
  });

  it('given a start 1 ms before the jump, still fires the shifted occurrence at the jump', () => {
    const jump = ms('2026-03-08T07:00:00Z');
    expect(nextOccurrence(cron('30 2 * * *'), jump - 1, zone, DEFAULT_DST_POLICY).fire?.at).toBe(jump);
  });

  it('given a start exactly at the jump, does not fire the skipped wall time again', () => {
    const jump = ms('2026-03-08T07:00:00Z');
    expect(nextOccurrence(cron('30 2 * * *'), jump, zone, DEFAULT_DST_POLICY).fire?.at).toBe(
      ms('2026-03-09T06:30:00Z'),
    );
  });
});

describe('nextOccurrence where the clocks fall back', () => {
  const zone = 'America/New_York';
  const insideSecondHour = ms('2026-11-01T06:15:00Z'); // 01:15 EST

  it('given --dst-repeat first and a start inside the repeated hour, passes the second 01:30 and fires the next day', () => {
    const { fire, passed } = nextOccurrence(
      cron('30 1 * * *'),
      insideSecondHour,
      zone,
      policy('shift', 'first'),
    );
    expect(passed).toEqual([
      {
        at: ms('2026-11-01T06:30:00Z'),
        wall: '2026-11-01T01:30:00',
        note: { kind: 'repeated', occurrence: 'second' },
      },
    ]);
    expect(fire).toEqual({ at: ms('2026-11-02T06:30:00Z'), wall: '2026-11-02T01:30:00', note: null });
  });

  it('given --dst-repeat last and a start before the change, passes the first 01:30 and fires the second', () => {
    const { fire, passed } = nextOccurrence(
      cron('30 1 * * *'),
      ms('2026-11-01T04:00:00Z'),
      zone,
      policy('shift', 'last'),
    );
    expect(passed.map((o) => o.at)).toEqual([ms('2026-11-01T05:30:00Z')]);
    expect(fire?.at).toBe(ms('2026-11-01T06:30:00Z'));
  });

  it('given a fixed time outside the repeated hour (09:00), has no note on the day of the change', () => {
    const { fire } = nextOccurrence(
      cron('0 9 * * *'),
      ms('2026-11-01T04:00:00Z'),
      zone,
      policy('shift', 'both'),
    );
    expect(fire).toEqual({ at: ms('2026-11-01T14:00:00Z'), wall: '2026-11-01T09:00:00', note: null });
  });
});

describe('wildcard-hour jobs are not subject to gap or repeat handling', () => {
  const zone = 'America/New_York';

  it('given "*/30 * * * *" and --dst-gap skip, has no 02:xx and passes nothing on the spring-forward day', () => {
    const { items } = occurrencesBetween(
      cron('*/30 * * * *'),
      ms('2026-03-08T06:15:00Z'),
      ms('2026-03-08T07:45:00Z'),
      zone,
      policy('skip', 'first'),
      10,
    );
    expect(listing(items, zone)).toEqual([
      '2026-03-08T01:30:00-05:00',
      '2026-03-08T03:00:00-04:00',
      '2026-03-08T03:30:00-04:00',
    ]);
  });

  it('given "*/30 * * * *" and --dst-repeat first, fires at all four 01:xx instants of the fall-back without notes', () => {
    const { items } = occurrencesBetween(
      cron('*/30 * * * *'),
      ms('2026-11-01T04:45:00Z'),
      ms('2026-11-01T06:45:00Z'),
      zone,
      policy('shift', 'first'),
      10,
    );
    expect(listing(items, zone)).toEqual([
      '2026-11-01T01:00:00-04:00',
      '2026-11-01T01:30:00-04:00',
      '2026-11-01T01:00:00-05:00',
      '2026-11-01T01:30:00-05:00',
    ]);
  });
});

describe('at and every schedules', () => {
  it('given an at schedule in the future, fires it once with its local wall time and no note', () => {
    const schedule: Schedule = { kind: 'at', at: ms('2026-11-01T06:30:00Z') };
    expect(nextOccurrence(schedule, 0, 'America/New_York', policy('skip', 'last'))).toEqual({
      fire: { at: ms('2026-11-01T06:30:00Z'), wall: '2026-11-01T01:30:00', note: null },
      passed: [],
    });
  });

  it('given an at schedule that is not after the start, never fires', () => {
    const schedule: Schedule = { kind: 'at', at: ms('2026-12-01T08:00:00Z') };
    expect(nextOccurrence(schedule, ms('2026-12-01T08:00:00Z'), 'UTC', DEFAULT_DST_POLICY)).toEqual({
      fire: null,
      passed: [],
    });
  });

  it('given an every schedule across a fall-back, fires each interval without notes, showing the repeated wall times', () => {
    const anchor = ms('2026-11-01T04:30:00Z');
    const schedule: Schedule = { kind: 'every', intervalMs: 3_600_000, anchorMs: anchor };
    const { items } = occurrencesBetween(
      schedule,
      anchor,
      anchor + 3 * 3_600_000,
      'America/New_York',
      policy('skip', 'first'),
      10,
    );
    expect(items.map((o) => [o.wall, o.note, o.fires])).toEqual([
      ['2026-11-01T01:30:00', null, true],
      ['2026-11-01T01:30:00', null, true],
      ['2026-11-01T02:30:00', null, true],
    ]);
  });

  it('given an every schedule with a millisecond interval part, writes milliseconds in the wall time', () => {
    const schedule: Schedule = { kind: 'every', intervalMs: 1_500, anchorMs: 0 };
    expect(nextOccurrence(schedule, 0, 'UTC', DEFAULT_DST_POLICY).fire?.wall).toBe('1970-01-01T00:00:01.500');
  });
});

describe('occurrencesBetween bounds', () => {
  const hourly = cron('0 * * * *');
  const from = ms('2026-06-01T00:00:00Z');

  it('given a range, excludes its start and includes its end', () => {
    const { items } = occurrencesBetween(hourly, from, from + 2 * 3_600_000, 'UTC', DEFAULT_DST_POLICY, 10);
    expect(items.map((o) => o.at)).toEqual([from + 3_600_000, from + 2 * 3_600_000]);
  });

  it('given exactly as many occurrences as the limit, is not truncated', () => {
    const { items, truncated } = occurrencesBetween(
      hourly,
      from,
      from + 3 * 3_600_000,
      'UTC',
      DEFAULT_DST_POLICY,
      3,
    );
    expect([items.length, truncated]).toEqual([3, false]);
  });

  it('given more occurrences than the limit, returns the first ones and says it truncated', () => {
    const { items, truncated } = occurrencesBetween(
      hourly,
      from,
      from + 30 * 86_400_000,
      'UTC',
      DEFAULT_DST_POLICY,
      5,
    );
    expect([items.length, items.at(-1)?.at, truncated]).toEqual([5, from + 5 * 3_600_000, true]);
  });

  it('given an every schedule of one second over a year, stops at the limit', () => {
    const schedule: Schedule = { kind: 'every', intervalMs: 1_000, anchorMs: from };
    const { items, truncated } = occurrencesBetween(
      schedule,
      from,
      from + 365 * 86_400_000,
      'UTC',
      DEFAULT_DST_POLICY,
      10_000,
    );
    expect([items.length, truncated]).toEqual([10_000, true]);
  });

  it('given an empty or backwards range, returns nothing', () => {
    expect(occurrencesBetween(hourly, from, from, 'UTC', DEFAULT_DST_POLICY, 10)).toEqual({
      items: [],
      truncated: false,
    });
    expect(occurrencesBetween(hourly, from, from - 1, 'UTC', DEFAULT_DST_POLICY, 10)).toEqual({
      items: [],
      truncated: false,
    });
  });

  it('given a limit of zero and a non-empty range, returns nothing and says it truncated', () => {
    expect(occurrencesBetween(hourly, from, from + 3_600_000, 'UTC', DEFAULT_DST_POLICY, 0)).toEqual({
      items: [],
      truncated: true,
    });
  });

  it('given an unknown time zone, throws UNKNOWN_TIMEZONE', () => {
    expect(() => occurrencesBetween(hourly, from, from + 1, 'Mars/Olympus', DEFAULT_DST_POLICY, 1)).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_TIMEZONE' }),
    );
  });

  it('given a fixed time that only ever falls in a spring-forward gap and --dst-gap skip, stops searching and fires never', () => {
    // 02:30 on the second Sunday of March is skipped in New York every year.
    const { fire, passed } = nextOccurrence(
      cron('30 2 * 3 0#2'),
      from,
      'America/New_York',
      policy('skip', 'first'),
    );
    expect(fire).toBeNull();
    expect(passed.every((o) => o.note?.kind === 'skipped')).toBe(true);
    expect(passed.length).toBe(100);
  }, 20_000);
});

describe('nextFireAt', () => {
  const schedules: Schedule[] = [
    { kind: 'at', at: ms('2026-03-08T07:30:00Z') },
    { kind: 'every', intervalMs: 90 * 60_000, anchorMs: ms('2026-03-07T23:10:00Z') },
    { kind: 'every', intervalMs: 7, anchorMs: ms('2026-03-08T06:59:59.990Z') },
    cron('30 2 * * *'),
    cron('*/20 * * * *'),
    { kind: 'none' },
  ];
  const afters = ['2026-03-07T12:00:00Z', '2026-03-08T06:59:59.999Z', '2026-03-08T07:30:00Z'].map(ms);

  it('given each kind of schedule, zones with and without a clock change and instants around it, gives the instant nextOccurrence fires at', () => {
    for (const schedule of schedules)
      for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata'])
        for (const after of [...afters, ms('2026-03-07T23:10:00Z') - 1])
          for (const dst of [DEFAULT_DST_POLICY, policy('skip', 'last')])
            expect(
              nextFireAt(schedule, after, zone, dst),
              `${JSON.stringify(schedule)} ${zone} ${after}`,
            ).toBe(nextOccurrence(schedule, after, zone, dst).fire?.at ?? null);
  });

  it('given an unknown time zone, throws UNKNOWN_TIMEZONE for an every schedule as for the others', () => {
    expect(() => nextFireAt(schedules[1]!, afters[0]!, 'Mars/Olympus')).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_TIMEZONE' }),
    );
  });
});
