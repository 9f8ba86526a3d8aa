import { describe, expect, it } from 'vitest';
import { newId } from '../../src/store/ids.js';

describe('newId', () => {
  it('makes UUIDv7 ids that sort in the order they were made, even within one millisecond', () => {
    const ids = Array.from({ length: 5_000 }, () => newId());

    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids.slice(0, 10))
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
