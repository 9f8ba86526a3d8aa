import { describe, expect, it } from 'vitest';
import {
  admitGlobally,
  admitInDueOrder,
  decideOverlap,
  parseConcurrency,
  type OverlapState,
} from '../../../src/core/policy/overlap.js';

const idle: OverlapState = { runningRunIds: [], queuedRunId: null };
const busy: OverlapState = { runningRunIds: ['run-1'], queuedRunId: null };
const busyAndWaiting: OverlapState = { runningRunIds: ['run-1'], queuedRunId: 'run-2' };

describe('decideOverlap when nothing runs', () => {
  it.each(['allow', 'forbid', 'replace', 'queue'] as const)('given %s, starts the instant', (policy) => {
    expect(decideOverlap(policy, idle)).toEqual({ action: 'start' });
  });
});

describe('decideOverlap while the previous run still runs', () => {
  it('given allow, starts the instant beside it', () => {
    expect(decideOverlap('allow', busy)).toEqual({ action: 'start' });
  });

  it('given forbid, skips the instant for overlap', () => {
    expect(decideOverlap('forbid', busy)).toEqual({ action: 'skip', reason: 'overlap' });
  });

  it('given replace, cancels every running run and starts', () => {
    expect(decideOverlap('replace', { runningRunIds: ['run-1', 'run-2'], queuedRunId: null })).toEqual({
      action: 'replace',
      cancel: ['run-1', 'run-2'],
    });
  });

  it('given queue and no run waiting, queues the instant', () => {
    expect(decideOverlap('queue', busy)).toEqual({ action: 'queue' });
  });

  it('given queue and a run already waiting, skips the instant because the queue is full', () => {
    expect(decideOverlap('queue', busyAndWaiting)).toEqual({ action: 'skip', reason: 'queue-full' });
  });

  it('given queue, a run waiting and none running (the hand-over moment), still treats the queue as full', () => {
    expect(decideOverlap('queue', { runningRunIds: [], queuedRunId: 'run-2' })).toEqual({
      action: 'skip',
      reason: 'queue-full',
    });
  });
});

describe('decideOverlap does not change its input', () => {
  it('given replace, returns a copy of the running ids', () => {
    const state = { runningRunIds: ['run-1'], queuedRunId: null };
    const decision = decideOverlap('replace', state);
    if (decision.action === 'replace') decision.cancel.push('other');
    expect(state.runningRunIds).toEqual(['run-1']);
  });
});

describe('parseConcurrency', () => {
  it.each(['allow', 'forbid', 'replace', 'queue'])('given "%s", returns it', (text) => {
    expect(parseConcurrency(text)).toBe(text);
  });

  it('given an unknown policy, throws VALIDATION_FAILED naming the choices', () => {
    expect(() => parseConcurrency('parallel')).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        hint: expect.stringMatching(/forbid.*allow.*replace.*queue/),
      }),
    );
  });
});

describe('admitGlobally', () => {
  it('given no limit, admits any number of runs', () => {
    expect(admitGlobally(10_000, null)).toBe(true);
  });

  it('given fewer active runs than the limit, admits one more', () => {
    expect(admitGlobally(2, 3)).toBe(true);
  });

  it('given as many active runs as the limit, refuses', () => {
    expect(admitGlobally(3, 3)).toBe(false);
  });
});

describe('admitInDueOrder', () => {
  const waiting = [
    { id: 'c', dueAt: 300 },
    { id: 'b', dueAt: 100 },
    { id: 'a', dueAt: 100 },
    { id: 'd', dueAt: 200 },
  ];

  it('given two free slots, admits the two earliest due, ties broken by id', () => {
    expect(admitInDueOrder(waiting, 1, 3).map((run) => run.id)).toEqual(['a', 'b']);
  });

  it('given no free slot, admits none', () => {
    expect(admitInDueOrder(waiting, 5, 3)).toEqual([]);
  });

  it('given no limit, admits all in due order', () => {
    expect(admitInDueOrder(waiting, 99, null).map((run) => run.id)).toEqual(['a', 'b', 'd', 'c']);
  });
});
