import { describe, expect, it } from 'vitest';
import { explainOccurrence } from '../../src/core/schedule/explain.js';
import {
  DEFAULT_DST_POLICY,
  nextOccurrence,
  occurrencesBetween,
  type DstPolicy,
} from '../../src/core/schedule/occurrences.js';

const ms = (iso: string): number => Date.parse(iso);
const cron = (expression: string) => ({ kind: 'cron' as const, expression });
const NY = 'America/New_York';
const withRepeat = (repeat: DstPolicy['repeat']): DstPolicy => ({ gap: 'shift', repeat });

/** The two occurrences of 01:30 on New York's fall-back day, first then second. */
function fallBackPair(dst: DstPolicy) {
  const { items } = occurrencesBetween(
    cron('30 1 * * *'),
    ms('2026-11-01T04:00:00Z'),
    ms('2026-11-01T08:00:00Z'),
    NY,
    dst,
    5,
  );
  return { first: items[0]!, second: items[1]! };
}

describe('explainOccurrence for wall times the clocks skip', () => {
  it('given a shifted occurrence and a zone, says where it moved from and to, with the zone abbreviation', () => {
    const { fire } = nextOccurrence(cron('30 2 * * *'), ms('2026-03-08T05:00:00Z'), NY, DEFAULT_DST_POLICY);
    expect(explainOccurrence(fire!, DEFAULT_DST_POLICY, NY)).toBe(
      'moved from 02:30 (skipped by the spring-forward jump) to 03:00 EDT',
    );
  });

  it('given a shifted occurrence and no zone, leaves the abbreviation out', () => {
    const { fire } = nextOccurrence(
      cron('15 2 * * *'),
      ms('2026-10-03T13:00:00Z'),
      'Australia/Lord_Howe',
      DEFAULT_DST_POLICY,
    );
    expect(explainOccurrence(fire!, DEFAULT_DST_POLICY)).toBe(
      'moved from 02:15 (skipped by the spring-forward jump) to 02:30',
    );
  });

  it('given a skipped occurrence, names the wall time that does not exist and the flag', () => {
    const dst: DstPolicy = { gap: 'skip', repeat: 'first' };
    const { passed } = nextOccurrence(cron('30 2 * * *'), ms('2026-03-08T05:00:00Z'), NY, dst);
    expect(explainOccurrence(passed[0]!, dst, NY)).toBe(
      'skipped: 02:30 does not exist on 2026-03-08 (--dst-gap skip)',
    );
  });

  it('given a wall time with seconds, shows the seconds', () => {
    const { fire } = nextOccurrence(
      cron('15 30 2 * * *'),
      ms('2026-03-08T05:00:00Z'),
      NY,
      DEFAULT_DST_POLICY,
    );
    expect(explainOccurrence(fire!, DEFAULT_DST_POLICY)).toBe(
      'moved from 02:30:15 (skipped by the spring-forward jump) to 03:00',
    );
  });
});

describe('explainOccurrence for wall times the clocks repeat', () => {
  it('given --dst-repeat first, says the first runs and the second does not', () => {
    const dst = withRepeat('first');
    const { first, second } = fallBackPair(dst);
    expect(explainOccurrence(first, dst)).toBe(
      'first of two 01:30s (fall-back); the second is not run (--dst-repeat first)',
    );
    expect(explainOccurrence(second, dst)).toBe(
      'second 01:30 (fall-back); not run, the first already ran (--dst-repeat first)',
    );
  });

  it('given --dst-repeat last, says the second runs instead of the first', () => {
    const dst = withRepeat('last');
    const { first, second } = fallBackPair(dst);
    expect(explainOccurrence(first, dst)).toBe(
      'first of two 01:30s (fall-back); not run, the second runs instead (--dst-repeat last)',
    );
    expect(explainOccurrence(second, dst)).toBe(
      'second of two 01:30s (fall-back); runs instead of the first (--dst-repeat last)',
    );
  });

  it('given --dst-repeat both, says both run', () => {
    const dst = withRepeat('both');
    const { first, second } = fallBackPair(dst);
    expect(explainOccurrence(first, dst)).toBe(
      'first of two 01:30s (fall-back); both run (--dst-repeat both)',
    );
    expect(explainOccurrence(second, dst)).toBe(
      'second of two 01:30s (fall-back); both run (--dst-repeat both)',
    );
  });

  it('given a zone, tells the two occurrences apart by abbreviation', () => {
    const dst = withRepeat('first');
    const { first, second } = fallBackPair(dst);
    expect(explainOccurrence(first, dst, NY)).toBe(
      'first of two 01:30s (EDT, before the fall-back); the second is not run (--dst-repeat first)',
    );
    expect(explainOccurrence(second, dst, NY)).toBe(
      'second 01:30 (EST, after the fall-back); not run, the first already ran (--dst-repeat first)',
    );
  });
});

describe('explainOccurrence for untouched occurrences', () => {
  it('given an occurrence no clock change touched, returns null', () => {
    const { fire } = nextOccurrence(cron('0 9 * * *'), ms('2026-03-08T05:00:00Z'), NY, DEFAULT_DST_POLICY);
    expect(explainOccurrence(fire!, DEFAULT_DST_POLICY, NY)).toBeNull();
  });
});
