import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataJson, entryJson } from '../../../src/core/consensus/entry-json.js';

describe('an entry as JSON', () => {
  it('Given any entry, when written with entryJson, then it parses back to the same entry', () => {
    const entry = fc.record(
      {
        index: fc.integer({ min: 1 }),
        term: fc.nat(),
        data: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }))),
        voters: fc.array(fc.string({ maxLength: 12 }), { maxLength: 5 }),
      },
      { requiredKeys: ['index', 'term', 'data'] },
    );
    fc.assert(
      fc.property(entry, (value) => {
        expect(JSON.parse(entryJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('Given the same data object twice, then the second answer is the first (made once), and data of no object is plain JSON', () => {
    const data = { op: 'createJob', args: [{ name: 'nightly', tags: ['é', '\u2028'] }] };
    const first = dataJson(data);
    expect(first).toBe(JSON.stringify(data));
    expect(dataJson(data)).toBe(first);
    expect(dataJson(null)).toBe('null');
    expect(dataJson(undefined)).toBe('null');
    expect(dataJson(7)).toBe('7');
  });
});
