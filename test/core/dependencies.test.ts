import { describe, expect, it } from 'vitest';
import { parseAfter, triggersOn, type UpstreamRunEnd } from '../../src/core/dependencies/after.js';
import { cycleError, describeCycle, findCycle } from '../../src/core/dependencies/cycle.js';
import { fanInReady, fanInWaitingFor } from '../../src/core/dependencies/fan-in.js';

describe('parseAfter', () => {
  it('given a bare job name, depends on its success', () => {
    expect(parseAfter('backup')).toEqual({ job: 'backup', on: 'success' });
  });

  it.each(['success', 'failure', 'always'] as const)('given "backup:%s", depends on that outcome', (on) => {
    expect(parseAfter(`backup:${on}`)).toEqual({ job: 'backup', on });
  });

  it('given an outcome in capitals, accepts it', () => {
    expect(parseAfter('backup:FAILURE')).toEqual({ job: 'backup', on: 'failure' });
  });

  it('given a job name that contains a colon, keeps the colon in the name', () => {
    expect(parseAfter('db:backup')).toEqual({ job: 'db:backup', on: 'success' });
  });

  it('given a job name with a colon and an outcome, splits at the last colon', () => {
    expect(parseAfter('db:backup:always')).toEqual({ job: 'db:backup', on: 'always' });
  });

  it('given a job whose name ends in a near-miss word, accepts it with an explicit outcome', () => {
    expect(parseAfter('health:ok:success')).toEqual({ job: 'health:ok', on: 'success' });
  });

  it('given a suffix that is an Object property name, reads it as part of the job name', () => {
    expect(parseAfter('x:constructor')).toEqual({ job: 'x:constructor', on: 'success' });
  });

  it.each([
    ['backup:failed', 'backup:failure'],
    ['backup:ok', 'backup:success'],
    ['backup:sucess', 'backup:success'],
    ['backup:allways', 'backup:always'],
  ])('given "%s", refuses it and suggests %s', (text, suggestion) => {
    expect(() => parseAfter(text)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        hint: expect.stringContaining(`Did you mean ${suggestion}?`),
      }),
    );
  });

  it.each(['', ':success', '   '])('given "%s", refuses it because it names no job', (text) => {
    expect(() => parseAfter(text)).toThrow(
      expect.objectContaining({ message: expect.stringContaining('names no job') }),
    );
  });

  it('given a name with characters job names cannot have, refuses it', () => {
    expect(() => parseAfter('back up')).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('is not a job name'),
      }),
    );
  });
});

describe('triggersOn', () => {
  it.each([
    ['success', true],
    ['failure', false],
    ['always', true],
  ] as const)('given a succeeded run and on=%s, triggers: %s', (on, expected) => {
    expect(triggersOn('succeeded', on, true)).toBe(expected);
  });

  it('given a succeeded run reported as not final, still triggers success: nothing retries a success', () => {
    expect(triggersOn('succeeded', 'success', false)).toBe(true);
  });

  it.each(['failed', 'timed_out', 'lost'] as const)(
    'given a %s final attempt, triggers failure and always, not success',
    (outcome) => {
      expect([
        triggersOn(outcome, 'success', true),
        triggersOn(outcome, 'failure', true),
        triggersOn(outcome, 'always', true),
      ]).toEqual([false, true, true]);
    },
  );

  it.each(['failed', 'timed_out', 'lost', 'cancelled'] as const)(
    'given a %s attempt that will be retried, triggers nothing yet',
    (outcome: UpstreamRunEnd) => {
      expect([triggersOn(outcome, 'failure', false), triggersOn(outcome, 'always', false)]).toEqual([
        false,
        false,
      ]);
    },
  );

  it('given a cancelled run, triggers always but not failure: a cancel is a decision, not a failure', () => {
    expect([
      triggersOn('cancelled', 'success', true),
      triggersOn('cancelled', 'failure', true),
      triggersOn('cancelled', 'always', true),
    ]).toEqual([false, false, true]);
  });
});

describe('findCycle', () => {
  const graph = (entries: Record<string, string[]>) => new Map(Object.entries(entries));

  it('given a change that closes a three-job loop, returns the loop starting and ending at the changed job', () => {
    expect(findCycle(graph({ b: ['c'], c: ['a'] }), { job: 'a', upstream: ['b'] })).toEqual([
      'a',
      'b',
      'c',
      'a',
    ]);
  });

  it('given a job that names itself, returns the one-job cycle', () => {
    expect(findCycle(graph({}), { job: 'a', upstream: ['a'] })).toEqual(['a', 'a']);
  });

  it('given a change that makes a diamond but no loop, returns null', () => {
    expect(findCycle(graph({ b: ['d'], c: ['d'], d: [] }), { job: 'a', upstream: ['b', 'c'] })).toBeNull();
  });

  it('given two loops through the changed job, returns the shorter', () => {
    const edges = graph({ b: ['c'], c: ['d'], d: ['a'], e: ['a'] });
    expect(findCycle(edges, { job: 'a', upstream: ['b', 'e'] })).toEqual(['a', 'e', 'a']);
  });

  it('given the stored edges of the changed job, uses the new upstream list instead', () => {
    expect(findCycle(graph({ a: ['b'], b: ['a'] }), { job: 'a', upstream: [] })).toBeNull();
  });

  it('given upstream jobs that are not in the graph (schedule-only jobs), treats them as having no upstream', () => {
    expect(findCycle(graph({}), { job: 'a', upstream: ['x', 'y'] })).toBeNull();
  });

  it('given a long chain, finds the loop without recursion limits', () => {
    const edges = new Map<string, string[]>();
    for (let i = 1; i < 50_000; i++) edges.set(`j${i}`, [`j${i + 1}`]);
    edges.set('j50000', ['j0']);
    expect(findCycle(edges, { job: 'j0', upstream: ['j1'] })?.length).toBe(50_002);
  });
});

describe('describeCycle and cycleError', () => {
  it('given a three-job loop, reads as a sentence', () => {
    expect(describeCycle(['a', 'b', 'c', 'a'])).toBe('a runs after b, b runs after c and c runs after a');
  });

  it('given a one-job cycle, says the job runs after itself', () => {
    expect(describeCycle(['a', 'a'])).toBe('a runs after itself');
  });

  it('given a cycle, builds a VALIDATION_FAILED error that names it', () => {
    const error = cycleError(['a', 'b', 'a']);
    expect(error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'These dependencies form a cycle: a -> b -> a.',
      details: { cycle: ['a', 'b', 'a'] },
    });
    expect(error.hint).toContain('Here a runs after b and b runs after a');
  });
});

describe('fanInReady', () => {
  it('given every upstream succeeded since the last run, is ready', () => {
    expect(
      fanInReady(
        ['a', 'b'],
        new Map([
          ['a', 100],
          ['b', 200],
        ]),
      ),
    ).toBe(true);
  });

  it('given one upstream has not succeeded since, is not ready', () => {
    expect(
      fanInReady(
        ['a', 'b'],
        new Map([
          ['a', 100],
          ['b', null],
        ]),
      ),
    ).toBe(false);
  });

  it('given an upstream missing from the map, is not ready', () => {
    expect(fanInReady(['a', 'b'], new Map([['a', 100]]))).toBe(false);
  });

  it('given no upstreams, is never ready', () => {
    expect(fanInReady([], new Map())).toBe(false);
  });

  it('given a success at time 0, counts it as a success', () => {
    expect(fanInReady(['a'], new Map([['a', 0]]))).toBe(true);
  });

  it('given some upstreams still to succeed, names them in order', () => {
    expect(fanInWaitingFor(['a', 'b', 'c'], new Map([['b', 5]]))).toEqual(['a', 'c']);
  });
});
