import { describe, expect, it } from 'vitest';
import {
  childSlots,
  DEFAULT_MAX_CHILDREN,
  descriptorsOfChild,
  SPAWNER_RESERVED_DESCRIPTORS,
} from '../../src/core/child-slots.js';
import { isSchedError, type SchedError } from '../../src/core/errors.js';

function refusal(openFileLimit: number, requested: number | null): SchedError {
  try {
    childSlots(openFileLimit, requested);
  } catch (error) {
    if (isSchedError(error)) return error;
    throw error;
  }
  throw new Error('childSlots accepted it');
}

describe('descriptorsOfChild', () => {
  it('counts stdout, stderr and the pidfd, and a pipe more for a payload and for another user', () => {
    expect(descriptorsOfChild({ stdinPipe: false, statusPipe: false })).toBe(3);
    expect(descriptorsOfChild({ stdinPipe: true, statusPipe: false })).toBe(4);
    expect(descriptorsOfChild({ stdinPipe: true, statusPipe: true })).toBe(5);
  });
});

describe('childSlots', () => {
  it('Given the default, when the open-file limit is low, then it allows as many children as fit, 3 files each', () => {
    expect(childSlots(1_024, null)).toEqual({
      maxChildren: Math.floor((1_024 - SPAWNER_RESERVED_DESCRIPTORS) / 3),
      descriptorBudget: 1_024 - SPAWNER_RESERVED_DESCRIPTORS,
    });
    expect(childSlots(1_024, null).maxChildren).toBe(320);
  });

  it('Given the default, when the limit has room for more, then it stops at 5,000', () => {
    expect(childSlots(65_536, null)).toEqual({ maxChildren: DEFAULT_MAX_CHILDREN, descriptorBudget: 65_472 });
    expect(DEFAULT_MAX_CHILDREN).toBe(5_000);
  });

  it('Given no limit the process can read, then the default is 5,000 and the descriptors are not counted', () => {
    expect(childSlots(null, null)).toEqual({ maxChildren: 5_000, descriptorBudget: null });
    expect(childSlots(null, 20_000)).toEqual({ maxChildren: 20_000, descriptorBudget: null });
  });

  it('Given max_children within the limit, then it is taken as it is, beyond the default too', () => {
    expect(childSlots(20_000, 10)).toEqual({ maxChildren: 10, descriptorBudget: 19_936 });
    expect(childSlots(20_000, 6_645)).toEqual({ maxChildren: 6_645, descriptorBudget: 19_936 });
  });

  it('Given max_children the limit cannot hold, then it is refused with the most it can and how to raise the limit', () => {
    const error = refusal(20_000, 6_646);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe(
      'max_children is 6646, but this daemon may open 20000 files and 6646 children need at least 20002 (3 a child, 64 for the spawner).',
    );
    expect(error.hint).toContain('Set max_children to at most 6645');
    expect(error.hint).toContain('raise the hard open-file limit (LimitNOFILE=');
    expect(error.details).toEqual({ maxChildren: 6_646, openFileLimit: 20_000, mostChildren: 6_645 });
  });

  it('Given an open-file limit too low for a command of every kind (5 descriptors), then even the default is refused', () => {
    const error = refusal(68, null);
    expect(error.message).toBe(
      'This daemon may open only 68 files: too few to run every command (at least 69).',
    );
    expect(error.hint).toContain('raise the hard open-file limit');
    expect(childSlots(69, null)).toEqual({ maxChildren: 1, descriptorBudget: 5 });
  });
});
