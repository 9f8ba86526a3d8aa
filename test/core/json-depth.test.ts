import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/core/json-depth.js';

describe('nestsDeeperThan', () => {
  it('given objects and arrays nested exactly to the limit, says no', () => {
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 4)).toBe(false);
  });

  it('given one level more than the limit, says yes', () => {
    expect(nestsDeeperThan('{"a":[{"b":[[]]}]}', 4)).toBe(true);
  });

  it('given brackets inside strings, escaped quotes included, does not count them', () => {
    expect(nestsDeeperThan('{"a":"[[[[\\\\\\"{{{{"}', 1)).toBe(false);
  });

  it('given siblings that each nest to the limit, counts depth rather than brackets', () => {
    expect(nestsDeeperThan(`[${'[[]],'.repeat(1000)}[]]`, 3)).toBe(false);
  });
});
