import { describe, expect, it } from 'vitest';
import {
  orderByDependencies,
  timePolicyInput,
  withUpstreamNames,
} from '../../src/cli/portable-definition.js';
import { definitionToInput } from '../../src/core/crontab/definition-input.js';
import { DEFAULT_TIME_POLICY, type JobDefinition } from '../../src/core/job.js';
import { normalizeJobInput } from '../../src/core/normalize.js';

const ctx = { now: Date.parse('2026-06-01T12:00:00Z'), defaultTimezone: 'UTC' };

/** A normalized definition (so fields added to the model later get their defaults), then changed. */
function definition(name: string, changes: Partial<JobDefinition> = {}): JobDefinition {
  const base = normalizeJobInput(
    { name, cron: '0 3 * * *', timezone: 'America/New_York', argv: ['./run.sh'] },
    ctx,
  );
  expect(base.policy).toEqual(DEFAULT_TIME_POLICY);
  return { ...base, ...changes };
}

describe('timePolicyInput, with definitionToInput', () => {
  it('given every time-policy setting changed, when turned into input and normalized again, then the definition comes back the same', () => {
    const original = definition('report', {
      policy: {
        concurrency: 'queue',
        misfire: {
          policy: { kind: 'count', count: 3 },
          catchupWindowMs: 7_200_000,
          skipIfNextWithinMs: 600_000,
        },
        dst: { gap: 'skip', repeat: 'both' },
        spreadMs: 300_000,
        jitterMs: 30_000,
      },
    });
    const input = { ...definitionToInput(original), ...timePolicyInput(original) };
    expect(normalizeJobInput(input, ctx)).toEqual(original);
  });

  it('given a job with dependencies only, when turned into input and normalized again, then it keeps no schedule and its upstream names', () => {
    const original = definition('publish', {
      schedule: { kind: 'none' },
      after: [
        { job: 'backup', on: 'failure' },
        { job: 'etl:daily', on: 'success' },
      ],
      afterAll: ['lint', 'team:tests'],
    });
    const input = { ...definitionToInput(original), ...timePolicyInput(original) };
    expect(normalizeJobInput(input, ctx)).toEqual(original);
  });

  it('given the default policy, when turned into input, then the optional settings are left out', () => {
    const input = timePolicyInput(definition('plain'));
    expect(input).toEqual({
      concurrency: 'forbid',
      misfire: 'latest',
      catchupWindow: '3600000ms',
      dstGap: 'shift',
      dstRepeat: 'first',
    });
  });
});

describe('withUpstreamNames', () => {
  it('given upstream ids, when named, then after and after-all carry names and the outcome stays', () => {
    const names = new Map([
      ['id-a', 'alpha'],
      ['id-b', 'beta'],
    ]);
    const { definition: named, unresolved } = withUpstreamNames(
      definition('c', { after: [{ job: 'id-a', on: 'always' }], afterAll: ['id-a', 'id-b'] }),
      (id) => names.get(id),
    );
    expect(named.after).toEqual([{ job: 'alpha', on: 'always' }]);
    expect(named.afterAll).toEqual(['alpha', 'beta']);
    expect(unresolved).toEqual([]);
  });

  it('given an upstream id nobody knows, when named, then it keeps the id and reports it once', () => {
    const { definition: named, unresolved } = withUpstreamNames(
      definition('c', { after: [{ job: 'id-x', on: 'success' }], afterAll: ['id-x', 'id-y'] }),
      () => undefined,
    );
    expect(named.after).toEqual([{ job: 'id-x', on: 'success' }]);
    expect(unresolved).toEqual(['id-x', 'id-y']);
  });
});

describe('orderByDependencies', () => {
  it('given a job listed before the jobs it runs after, when ordered, then its upstreams come first', () => {
    const publish = definition('publish', {
      schedule: { kind: 'none' },
      after: [{ job: 'backup', on: 'success' }],
      afterAll: ['backup', 'lint'],
    });
    const ordered = orderByDependencies([
      publish,
      definition('backup'),
      definition('other'),
      definition('lint'),
    ]);
    expect(ordered.map((each) => each.name)).toEqual(['backup', 'other', 'lint', 'publish']);
  });

  it('given jobs without dependencies among them, when ordered, then the order is kept', () => {
    const names = ['c', 'a', 'b'];
    expect(orderByDependencies(names.map((name) => definition(name))).map((each) => each.name)).toEqual(
      names,
    );
  });

  it('given an upstream that is not in the list, when ordered, then it does not hold the job back', () => {
    const ordered = orderByDependencies([
      definition('x', { after: [{ job: 'elsewhere', on: 'success' }] }),
      definition('y'),
    ]);
    expect(ordered.map((each) => each.name)).toEqual(['x', 'y']);
  });

  it('given a hand-made cycle, when ordered, then every job is still there once', () => {
    const ordered = orderByDependencies([
      definition('a', { after: [{ job: 'b', on: 'success' }] }),
      definition('b', { after: [{ job: 'a', on: 'success' }] }),
    ]);
    expect(ordered.map((each) => each.name).sort()).toEqual(['a', 'b']);
  });
});
