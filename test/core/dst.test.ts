import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { nextFireTime, nextFireTimes } from '../../src/core/schedule/next.js';

/** Fire instants as UTC ISO strings, so expectations read exactly. */
function fires(expression: string, timezone: string, fromIso: string, count: number): string[] {
  return nextFireTimes({ kind: 'cron', expression }, Date.parse(fromIso), timezone, count).map((instant) =>
    new Date(instant).toISOString().replace('.000', ''),
  );
}

/** Fire instants as the zone's clocks show them, with the offset. */
function localFires(expression: string, timezone: string, fromIso: string, count: number): string[] {
  return nextFireTimes({ kind: 'cron', expression }, Date.parse(fromIso), timezone, count).map(
    (instant) => DateTime.fromMillis(instant, { zone: timezone }).toISO({ suppressMilliseconds: true }) ?? '',
  );
}

describe('the transition dates these tests rely on', () => {
  it.each([
    ['America/New_York', '2026-03-08T07:00:00Z', -300, -240],
    ['America/New_York', '2026-11-01T06:00:00Z', -240, -300],
    ['Europe/London', '2026-03-29T01:00:00Z', 0, 60],
    ['Europe/London', '2026-10-25T01:00:00Z', 60, 0],
    ['Australia/Lord_Howe', '2026-04-04T15:00:00Z', 660, 630],
    ['Australia/Lord_Howe', '2026-10-03T15:30:00Z', 630, 660],
  ])('%s changes offset at %s from %i to %i minutes', (zone, iso, before, after) => {
    const instant = Date.parse(iso);
    expect(DateTime.fromMillis(instant - 1, { zone }).offset).toBe(before);
    expect(DateTime.fromMillis(instant, { zone }).offset).toBe(after);
  });
});

describe('America/New_York, spring forward on 2026-03-08 (02:00 EST -> 03:00 EDT)', () => {
  it('given a fixed time the clocks skip (02:30), fires once at the jump, 03:00 EDT', () => {
    expect(fires('30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', 2)).toEqual([
      '2026-03-08T07:00:00Z',
      '2026-03-09T06:30:00Z',
    ]);
  });

  it('given several skipped and real fixed times at the jump (02:00, 02:30, 03:00), fires once at 03:00 EDT, then 03:30', () => {
    expect(fires('0,30 2,3 * * *', 'America/New_York', '2026-03-08T05:00:00Z', 3)).toEqual([
      '2026-03-08T07:00:00Z',
      '2026-03-08T07:30:00Z',
      '2026-03-09T06:00:00Z',
    ]);
  });

  it('given a fixed time before the gap (01:30) and one in it (02:30), fires at 01:30 EST and at the jump', () => {
    expect(localFires('30 1,2 * * *', 'America/New_York', '2026-03-08T05:00:00Z', 2)).toEqual([
      '2026-03-08T01:30:00-05:00',
      '2026-03-08T03:00:00-04:00',
    ]);
  });

  it('given "*/30 * * * *", has no 02:xx at all and no extra fire', () => {
    expect(localFires('*/30 * * * *', 'America/New_York', '2026-03-08T06:15:00Z', 3)).toEqual([
      '2026-03-08T01:30:00-05:00',
      '2026-03-08T03:00:00-04:00',
      '2026-03-08T03:30:00-04:00',
    ]);
  });

  it('given "0 * * * *", goes from 01:00 EST straight to 03:00 EDT', () => {
    expect(fires('0 * * * *', 'America/New_York', '2026-03-08T05:30:00Z', 3)).toEqual([
      '2026-03-08T06:00:00Z',
      '2026-03-08T07:00:00Z',
      '2026-03-08T08:00:00Z',
    ]);
  });

  it('given every minute of the skipped hour ("* 2 * * *"), fires once at the jump, then the next day', () => {
    expect(fires('* 2 * * *', 'America/New_York', '2026-03-08T05:00:00Z', 2)).toEqual([
      '2026-03-08T07:00:00Z',
      '2026-03-09T06:00:00Z',
    ]);
  });

  it('given every second of the skipped hour ("* * 2 * * *"), fires once at the jump', () => {
    expect(fires('* * 2 * * *', 'America/New_York', '2026-03-08T05:00:00Z', 2)).toEqual([
      '2026-03-08T07:00:00Z',
      '2026-03-09T06:00:00Z',
    ]);
  });

  it('given a start exactly at the jump, does not fire the skipped time again', () => {
    expect(
      nextFireTime(
        { kind: 'cron', expression: '30 2 * * *' },
        Date.parse('2026-03-08T07:00:00Z'),
        'America/New_York',
      ),
    ).toBe(Date.parse('2026-03-09T06:30:00Z'));
  });
});

describe('America/New_York, fall back on 2026-11-01 (02:00 EDT -> 01:00 EST)', () => {
  it('given a fixed time the clocks repeat (01:30), fires once, at its first occurrence 01:30 EDT', () => {
    expect(fires('30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', 2)).toEqual([
      '2026-11-01T05:30:00Z',
      '2026-11-02T06:30:00Z',
    ]);
  });

  it('given a start inside the repeated hour, does not fire the repeated fixed time a second time', () => {
    expect(fires('30 1 * * *', 'America/New_York', '2026-11-01T06:15:00Z', 1)).toEqual([
      '2026-11-02T06:30:00Z',
    ]);
  });

  it('given a start inside the repeated hour, still fires a fixed time after the repeat (02:00 EST)', () => {
    expect(fires('0 2 * * *', 'America/New_York', '2026-11-01T06:15:00Z', 1)).toEqual([
      '2026-11-01T07:00:00Z',
    ]);
  });

  it('given fixed times in and after the repeated hour (01:30, 02:30), fires 01:30 EDT and 02:30 EST', () => {
    expect(localFires('30 1,2 * * *', 'America/New_York', '2026-11-01T04:00:00Z', 2)).toEqual([
      '2026-11-01T01:30:00-04:00',
      '2026-11-01T02:30:00-05:00',
    ]);
  });

  it('given "*/30 * * * *", fires at all four real instants: 01:00 EDT, 01:30 EDT, 01:00 EST, 01:30 EST', () => {
    expect(localFires('*/30 * * * *', 'America/New_York', '2026-11-01T04:45:00Z', 5)).toEqual([
      '2026-11-01T01:00:00-04:00',
      '2026-11-01T01:30:00-04:00',
      '2026-11-01T01:00:00-05:00',
      '2026-11-01T01:30:00-05:00',
      '2026-11-01T02:00:00-05:00',
    ]);
  });

  it('given "0 * * * *", fires at 01:00 twice, an hour apart', () => {
    expect(fires('0 * * * *', 'America/New_York', '2026-11-01T04:30:00Z', 3)).toEqual([
      '2026-11-01T05:00:00Z',
      '2026-11-01T06:00:00Z',
      '2026-11-01T07:00:00Z',
    ]);
  });

  it('given "0 9 * * *", keeps 09:00 local on both sides of the change', () => {
    expect(fires('0 9 * * *', 'America/New_York', '2026-10-31T00:00:00Z', 3)).toEqual([
      '2026-10-31T13:00:00Z',
      '2026-11-01T14:00:00Z',
      '2026-11-02T14:00:00Z',
    ]);
  });
});

describe('Europe/London, 2026-03-29 (01:00 GMT -> 02:00 BST) and 2026-10-25 (02:00 BST -> 01:00 GMT)', () => {
  it('given a fixed time in the spring gap (01:30), fires once at the jump, 02:00 BST', () => {
    expect(localFires('30 1 * * *', 'Europe/London', '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T02:00:00+01:00',
      '2026-03-30T01:30:00+01:00',
    ]);
  });

  it('given a fixed time in the autumn repeat (01:30), fires once at 01:30 BST', () => {
    expect(fires('30 1 * * *', 'Europe/London', '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00Z',
      '2026-10-26T01:30:00Z',
    ]);
  });

  it('given "*/30 * * * *" in spring, skips 01:00 and 01:30, which do not exist', () => {
    expect(localFires('*/30 * * * *', 'Europe/London', '2026-03-29T00:15:00Z', 3)).toEqual([
      '2026-03-29T00:30:00+00:00',
      '2026-03-29T02:00:00+01:00',
      '2026-03-29T02:30:00+01:00',
    ]);
  });

  it('given "*/30 * * * *" in autumn, fires at both 01:30s', () => {
    expect(fires('*/30 * * * *', 'Europe/London', '2026-10-25T00:15:00Z', 4)).toEqual([
      '2026-10-25T00:30:00Z',
      '2026-10-25T01:00:00Z',
      '2026-10-25T01:30:00Z',
      '2026-10-25T02:00:00Z',
    ]);
  });
});

describe('Australia/Lord_Howe, half-hour shifts: 2026-04-05 (02:00 -> 01:30) and 2026-10-04 (02:00 -> 02:30)', () => {
  it('given a fixed time in the 30-minute spring gap (02:15), fires once at the jump, 02:30 local', () => {
    expect(localFires('15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T00:00:00Z', 2)).toEqual([
      '2026-10-04T02:30:00+11:00',
      '2026-10-05T02:15:00+11:00',
    ]);
  });

  it('given a fixed time in the 30-minute repeat (01:45), fires once at its first occurrence (+11:00)', () => {
    expect(localFires('45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T00:00:00Z', 2)).toEqual([
      '2026-04-05T01:45:00+11:00',
      '2026-04-06T01:45:00+10:30',
    ]);
  });

  it('given a fixed time just before the repeat (01:15), fires once that day and on the next', () => {
    expect(fires('15 1 * * *', 'Australia/Lord_Howe', '2026-04-04T00:00:00Z', 2)).toEqual([
      '2026-04-04T14:15:00Z',
      '2026-04-05T14:45:00Z',
    ]);
  });

  it('given "*/15 * * * *" in autumn, fires at every real quarter hour, both 01:30 and both 01:45', () => {
    expect(localFires('*/15 * * * *', 'Australia/Lord_Howe', '2026-04-04T14:10:00Z', 6)).toEqual([
      '2026-04-05T01:15:00+11:00',
      '2026-04-05T01:30:00+11:00',
      '2026-04-05T01:45:00+11:00',
      '2026-04-05T01:30:00+10:30',
      '2026-04-05T01:45:00+10:30',
      '2026-04-05T02:00:00+10:30',
    ]);
  });

  it('given "*/15 * * * *" in spring, skips 02:00 and 02:15, which do not exist', () => {
    expect(localFires('*/15 * * * *', 'Australia/Lord_Howe', '2026-10-03T15:10:00Z', 3)).toEqual([
      '2026-10-04T01:45:00+10:30',
      '2026-10-04T02:30:00+11:00',
      '2026-10-04T02:45:00+11:00',
    ]);
  });

  it('given "0 * * * *" in spring, has no 02:00 because the gap swallows it', () => {
    expect(localFires('0 * * * *', 'Australia/Lord_Howe', '2026-10-03T14:00:00Z', 2)).toEqual([
      '2026-10-04T01:00:00+10:30',
      '2026-10-04T03:00:00+11:00',
    ]);
  });
});

describe('Asia/Kathmandu, +05:45 without daylight saving', () => {
  it('given "0 9 * * *", fires at exactly 03:15 UTC', () => {
    expect(fires('0 9 * * *', 'Asia/Kathmandu', '2026-06-01T00:00:00Z', 2)).toEqual([
      '2026-06-01T03:15:00Z',
      '2026-06-02T03:15:00Z',
    ]);
  });

  it('given "*/30 * * * *", fires at a quarter past and a quarter to the UTC hour', () => {
    expect(fires('*/30 * * * *', 'Asia/Kathmandu', '2026-06-01T00:00:00Z', 3)).toEqual([
      '2026-06-01T00:15:00Z',
      '2026-06-01T00:45:00Z',
      '2026-06-01T01:15:00Z',
    ]);
  });

  it('given "@daily", fires at local midnight, 18:15 UTC the day before', () => {
    expect(fires('@daily', 'Asia/Kathmandu', '2026-06-01T00:00:00Z', 1)).toEqual(['2026-06-01T18:15:00Z']);
  });

  it('given the 1986 move from +05:30 to +05:45, fires a fixed time in the 15-minute gap at the jump', () => {
    expect(localFires('5 0 * * *', 'Asia/Kathmandu', '1985-12-31T00:00:00Z', 2)).toEqual([
      '1986-01-01T00:15:00+05:45',
      '1986-01-02T00:05:00+05:45',
    ]);
  });

  it('given the 1986 move, an every-five-minutes job skips the three wall times that never happened', () => {
    expect(localFires('*/5 * * * *', 'Asia/Kathmandu', '1985-12-31T18:20:00Z', 2)).toEqual([
      '1985-12-31T23:55:00+05:30',
      '1986-01-01T00:15:00+05:45',
    ]);
  });
});

describe('every second and every minute across a whole transition day', () => {
  it.each([
    ['America/New_York', '2026-11-01T04:00:00Z', 25 * 60],
    ['America/New_York', '2026-03-08T05:00:00Z', 23 * 60],
    ['Australia/Lord_Howe', '2026-04-04T13:00:00Z', 24 * 60 + 30],
    ['Australia/Lord_Howe', '2026-10-03T13:30:00Z', 23 * 60 + 30],
  ])(
    'given "* * * * *" in %s, fires once per real minute of the local day starting %s',
    (zone, startIso, minutes) => {
      const start = Date.parse(startIso) - 1;
      const times = nextFireTimes({ kind: 'cron', expression: '* * * * *' }, start, zone, minutes + 1);
      expect(times.slice(0, minutes).every((time, index) => time === start + 1 + index * 60_000)).toBe(true);
      expect(DateTime.fromMillis(times[minutes] ?? 0, { zone }).toFormat('HH:mm')).toBe('00:00');
    },
  );

  it('given "* * * * * *" in the repeated hour, fires every real second, never twice at one instant', () => {
    const times = nextFireTimes(
      { kind: 'cron', expression: '* * * * * *' },
      Date.parse('2026-11-01T05:59:58Z'),
      'America/New_York',
      4,
    );
    expect(times.map((time) => new Date(time).toISOString())).toEqual([
      '2026-11-01T05:59:59.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T06:00:01.000Z',
      '2026-11-01T06:00:02.000Z',
    ]);
  });
});
