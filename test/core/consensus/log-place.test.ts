import { describe, expect, it } from 'vitest';
import { placeOverwritten } from '../../../src/core/consensus/log-place.js';

describe('whether an entry appended at a place can still commit', () => {
  it('Given the entry committed at the place itself, then it is overwritten only when that entry is of another term', () => {
    expect(placeOverwritten({ index: 7, term: 2 }, { index: 7, term: 2 })).toBe(false);
    expect(placeOverwritten({ index: 7, term: 2 }, { index: 7, term: 3 })).toBe(true);
    expect(placeOverwritten({ index: 7, term: 2 }, { index: 7, term: 1 })).toBe(true);
  });

  it('Given an entry committed before the place, then it is overwritten only by a later term (a later leader never held it)', () => {
    expect(placeOverwritten({ index: 7, term: 2 }, { index: 5, term: 3 })).toBe(true);
    expect(placeOverwritten({ index: 7, term: 2 }, { index: 5, term: 2 })).toBe(false);
    expect(placeOverwritten({ index: 7, term: 2 }, { index: 5, term: 1 })).toBe(false);
  });

  it('Given an entry committed after the place, then it says nothing (the place was applied first)', () => {
    expect(placeOverwritten({ index: 7, term: 2 }, { index: 9, term: 5 })).toBe(false);
  });
});
