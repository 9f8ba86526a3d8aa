import { describe, expect, it } from 'vitest';
import { decideFireOverlap, type RunInFlight } from '../../../src/core/policy/fire-overlap.js';

const runningHere: RunInFlight = { id: 'r1', node: 'a', state: 'running', trigger: 'schedule' };
const runningThere: RunInFlight = { id: 'r2', node: 'b', state: 'running', trigger: 'manual' };
const queued: RunInFlight = { id: 'r3', node: 'a', state: 'scheduled', trigger: 'schedule' };
const retryWaiting: RunInFlight = { id: 'r4', node: 'b', state: 'scheduled', trigger: 'retry' };

describe('decideFireOverlap', () => {
  it('given forbid and a run running on another node, skips naming the run and its node', () => {
    expect(decideFireOverlap('forbid', 'running', [runningThere], 'a')).toEqual({
      action: 'skip',
      reason: 'run r2 on node b was still running (--concurrency forbid)',
    });
  });

  it('given forbid and a run running on the deciding node, skips naming the run alone', () => {
    expect(decideFireOverlap('forbid', 'running', [runningHere], 'a')).toEqual({
      action: 'skip',
      reason: 'run r1 was still running (--concurrency forbid)',
    });
  });

  it('given forbid and only waiting runs, runs the instant as asked', () => {
    expect(decideFireOverlap('forbid', 'running', [retryWaiting], 'a')).toEqual({
      action: 'run',
      state: 'running',
      replaced: [],
    });
  });

  it('given queue and a run running elsewhere, makes the instant wait', () => {
    expect(decideFireOverlap('queue', 'running', [runningThere], 'a')).toEqual({
      action: 'run',
      state: 'scheduled',
      replaced: [],
    });
  });

  it('given queue and an instant already waiting, skips keeping at most one waiting', () => {
    const overlap = decideFireOverlap('queue', 'running', [runningThere, queued], 'a');
    expect(overlap).toEqual({
      action: 'skip',
      reason:
        'run r2 on node b was still running and run r3 was already waiting (--concurrency queue keeps at most one waiting)',
    });
  });

  it('given replace, runs the instant and names every running run with its node', () => {
    expect(decideFireOverlap('replace', 'running', [runningHere, runningThere, queued], 'a')).toEqual({
      action: 'run',
      state: 'running',
      replaced: [
        { id: 'r1', node: 'a' },
        { id: 'r2', node: 'b' },
      ],
    });
  });

  it('given allow, runs the instant beside the others in the state asked (no slot: waiting)', () => {
    expect(decideFireOverlap('allow', 'scheduled', [runningHere, runningThere], 'a')).toEqual({
      action: 'run',
      state: 'scheduled',
      replaced: [],
    });
  });
});
