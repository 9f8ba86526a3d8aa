import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MISFIRE_SETTINGS,
  formatMisfire,
  parseMisfire,
  planMisfire,
  type MisfireSettings,
} from '../../../src/core/policy/misfire.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const now = Date.parse('2026-06-01T12:00:00Z');
/** Every 15 minutes over the 3 hours before `now` (09:14, 09:29 … 11:59), oldest first. */
const quarterHours = Array.from(
  { length: 12 },
  (_, index) => now - 3 * HOUR + (index + 1) * 15 * MINUTE - MINUTE,
);
const settings = (
  policy: MisfireSettings['policy'],
  overrides: Partial<MisfireSettings> = {},
): MisfireSettings => ({
  ...DEFAULT_MISFIRE_SETTINGS,
  policy,
  ...overrides,
});
const inWindow = quarterHours.filter((at) => at >= now - HOUR);
const tooOld = quarterHours.filter((at) => at < now - HOUR);

describe('parseMisfire', () => {
  it.each([
    ['skip', { kind: 'skip' }],
    ['latest', { kind: 'latest' }],
    ['all', { kind: 'all' }],
    ['count:3', { kind: 'count', count: 3 }],
    [' COUNT:10 ', { kind: 'count', count: 10 }],
  ])('given "%s", parses it', (text, expected) => {
    expect(parseMisfire(text)).toEqual(expected);
  });

  it.each(['sometimes', 'count', 'count:', 'count:-1', 'count:1.5', 'count:x'])(
    'given "%s", throws VALIDATION_FAILED with a hint listing the forms',
    (text) => {
      expect(() => parseMisfire(text)).toThrow(
        expect.objectContaining({ code: 'VALIDATION_FAILED', hint: expect.stringContaining('count:N') }),
      );
    },
  );

  it('given count:0, points to --misfire skip', () => {
    expect(() => parseMisfire('count:0')).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('--misfire skip') }),
    );
  });

  it('given a count over 10000, says what the bound is', () => {
    expect(() => parseMisfire('count:10001')).toThrow(
      expect.objectContaining({ message: expect.stringContaining('10000') }),
    );
  });

  it('given "once" (the word some schedulers use), says sched calls it latest', () => {
    expect(() => parseMisfire('once')).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('--misfire latest') }),
    );
  });

  it.each(['skip', 'latest', 'all', 'count:7'])('given "%s", formats back to the same text', (text) => {
    expect(formatMisfire(parseMisfire(text))).toBe(text);
  });
});

describe('planMisfire: the catch-up window', () => {
  it('given instants older than the window, drops them as outside-catchup-window', () => {
    const plan = planMisfire(quarterHours, now, null, settings({ kind: 'all' }), 'down');
    expect(plan.dropped.map((d) => [d.at, d.outcome])).toEqual(
      tooOld.map((at) => [at, 'outside-catchup-window']),
    );
  });

  it('given an instant exactly as old as the window, keeps it', () => {
    const plan = planMisfire([now - HOUR], now, null, settings({ kind: 'all' }), 'down');
    expect(plan.run).toEqual([now - HOUR]);
  });

  it('given an instant 1 ms older than the window, drops it', () => {
    const plan = planMisfire([now - HOUR - 1], now, null, settings({ kind: 'all' }), 'down');
    expect(plan.run).toEqual([]);
  });

  it('given an instant outside the window, gives a reason naming how late it was and the window', () => {
    const [dropped] = planMisfire([now - 3 * HOUR], now, null, settings({ kind: 'latest' }), 'down').dropped;
    expect(dropped?.reason).toBe(
      'it fell due while the scheduler was not running, 3h before it could run, outside the 1h catch-up window (--catchup-window 1h)',
    );
  });

  it('given a job that was paused, records every dropped instant as paused', () => {
    const plan = planMisfire(quarterHours, now, null, settings({ kind: 'latest' }), 'paused');
    expect(new Set(plan.dropped.map((d) => d.outcome))).toEqual(new Set(['paused']));
    expect(plan.dropped[0]?.reason).toContain('while the job was paused');
  });

  it('given instants missed while the store could not be reached, records every dropped one as store-unreachable', () => {
    const plan = planMisfire(quarterHours, now, null, settings({ kind: 'latest' }), 'store-unreachable');
    expect(plan.run).toEqual([quarterHours.at(-1)]);
    expect(new Set(plan.dropped.map((d) => d.outcome))).toEqual(new Set(['store-unreachable']));
    expect(plan.dropped.at(-1)?.reason).toBe(
      'it fell due while the store could not be reached and only the latest missed instant was caught up (--misfire latest)',
    );
  });
});

describe('planMisfire: the policies, within the window', () => {
  it('given skip, runs nothing and drops every instant as missed-while-down', () => {
    const plan = planMisfire(inWindow, now, null, settings({ kind: 'skip' }), 'down');
    expect(plan.run).toEqual([]);
    expect(plan.dropped.map((d) => d.outcome)).toEqual(inWindow.map(() => 'missed-while-down'));
    expect(plan.dropped[0]?.reason).toBe(
      'it fell due while the scheduler was not running and the job is set to --misfire skip',
    );
  });

  it('given latest, runs only the newest instant and drops the older ones', () => {
    const plan = planMisfire(inWindow, now, null, settings({ kind: 'latest' }), 'down');
    expect(plan.run).toEqual([inWindow.at(-1)]);
    expect(plan.dropped.map((d) => d.at)).toEqual(inWindow.slice(0, -1));
    expect(plan.dropped[0]?.reason).toBe(
      'it fell due while the scheduler was not running and only the latest missed instant was caught up (--misfire latest)',
    );
  });

  it('given all, runs every instant in order', () => {
    expect(planMisfire(inWindow, now, null, settings({ kind: 'all' }), 'down')).toEqual({
      run: inWindow,
      dropped: [],
    });
  });

  it('given count:2, runs the newest two in order and drops the older ones', () => {
    const plan = planMisfire(inWindow, now, null, settings({ kind: 'count', count: 2 }), 'down');
    expect(plan.run).toEqual(inWindow.slice(-2));
    expect(plan.dropped.map((d) => d.at)).toEqual(inWindow.slice(0, -2));
    expect(plan.dropped[0]?.reason).toContain(
      'only the latest 2 missed instants were caught up (--misfire count:2)',
    );
  });

  it('given count larger than the missed instants, runs them all', () => {
    expect(planMisfire(inWindow, now, null, settings({ kind: 'count', count: 50 }), 'down').run).toEqual(
      inWindow,
    );
  });

  it('given latest and instants both in and out of the window, runs the newest and drops the rest by their cause', () => {
    const plan = planMisfire(quarterHours, now, null, settings({ kind: 'latest' }), 'down');
    expect(plan.run).toEqual([quarterHours.at(-1)]);
    expect(plan.dropped.map((d) => d.outcome)).toEqual([
      ...tooOld.map(() => 'outside-catchup-window'),
      ...inWindow.slice(0, -1).map(() => 'missed-while-down'),
    ]);
  });

  it('given no missed instants, plans nothing', () => {
    expect(planMisfire([], now, now + HOUR, settings({ kind: 'all' }), 'down')).toEqual({
      run: [],
      dropped: [],
    });
  });
});

describe('planMisfire: --skip-if-next-within', () => {
  const within5m = (policy: MisfireSettings['policy']) =>
    settings(policy, { skipIfNextWithinMs: 5 * MINUTE });

  it('given the next regular instant within the duration, drops the catch-up too', () => {
    const plan = planMisfire(inWindow, now, now + 4 * MINUTE, within5m({ kind: 'latest' }), 'down');
    expect(plan.run).toEqual([]);
    expect(plan.dropped.map((d) => d.at)).toEqual(inWindow);
    expect(plan.dropped.at(-1)?.reason).toBe(
      'it fell due while the scheduler was not running and the next regular run was due 4m later, within --skip-if-next-within 5m, so no catch-up ran',
    );
  });

  it('given the next regular instant exactly at the duration, drops the catch-up', () => {
    expect(planMisfire(inWindow, now, now + 5 * MINUTE, within5m({ kind: 'all' }), 'down').run).toEqual([]);
  });

  it('given the next regular instant further off, catches up as usual', () => {
    expect(planMisfire(inWindow, now, now + 6 * MINUTE, within5m({ kind: 'latest' }), 'down').run).toEqual([
      inWindow.at(-1),
    ]);
  });

  it('given no next regular instant (a one-shot job), catches up as usual', () => {
    expect(planMisfire(inWindow, now, null, within5m({ kind: 'latest' }), 'down').run).toEqual([
      inWindow.at(-1),
    ]);
  });
});

describe('planMisfire: untidy input', () => {
  it('given instants out of order and repeated, plans each once, oldest first', () => {
    const [a = 0, b = 0, c = 0] = inWindow;
    expect(planMisfire([c, a, b, a], now, null, settings({ kind: 'all' }), 'down').run).toEqual([a, b, c]);
  });

  it('given an instant after now, ignores it: it is not missed', () => {
    expect(planMisfire([now - MINUTE, now + MINUTE], now, null, settings({ kind: 'all' }), 'down')).toEqual({
      run: [now - MINUTE],
      dropped: [],
    });
  });

  it('given an instant exactly at now, treats it as due', () => {
    expect(planMisfire([now], now, null, settings({ kind: 'latest' }), 'down').run).toEqual([now]);
  });
});
