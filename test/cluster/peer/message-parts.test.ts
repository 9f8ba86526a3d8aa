import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PartsAssembler, splitIntoParts } from '../../../src/cluster/peer/message-parts.js';

describe('a message sent in parts', () => {
  it('is put together again whole, however many parts it took', () => {
    const body = randomBytes(10_000);
    const parts = splitIntoParts(body, 1_000, 7);
    expect(parts.every((part) => part.length <= 1_000)).toBe(true);
    const assembler = new PartsAssembler();
    const results = parts.map((part) => assembler.add('a', part));
    expect(results.slice(0, -1).every((result) => 'pending' in result)).toBe(true);
    expect(results.at(-1)).toEqual({ done: body });
  });

  it('is dropped when a part is missing, and the next message still comes through', () => {
    const assembler = new PartsAssembler();
    const [first, , third] = splitIntoParts(randomBytes(3_000), 1_012, 1);
    assembler.add('a', first!);
    expect(assembler.add('a', third!)).toEqual({ refused: 'part 2 of 3 out of order' });
    const next = randomBytes(2_500);
    const results = splitIntoParts(next, 1_012, 2).map((part) => assembler.add('a', part));
    expect(results.at(-1)).toEqual({ done: next });
  });

  it('is refused once it passes the bound on a message, before it is all in memory', () => {
    const assembler = new PartsAssembler(5_000);
    const results = splitIntoParts(randomBytes(20_000), 1_012, 3).map((part) => assembler.add('a', part));
    expect(results).toContainEqual({ refused: 'a message over 5000 bytes' });
    expect(results.some((result) => 'done' in result)).toBe(false);
  });

  it('keeps the parts of two connections apart', () => {
    const assembler = new PartsAssembler();
    const [one, two] = [randomBytes(2_000), randomBytes(2_000)];
    const [a, b] = [splitIntoParts(one, 1_012, 1), splitIntoParts(two, 1_012, 1)];
    const results = a.flatMap((part, index) => [assembler.add('a', part), assembler.add('b', b[index]!)]);
    expect(results.filter((result) => 'done' in result)).toEqual([{ done: one }, { done: two }]);
  });

  it('refuses a part of nonsense: no body, or a place past its count', () => {
    const assembler = new PartsAssembler();
    expect(assembler.add('a', Buffer.alloc(12))).toEqual({ refused: 'a part without a body' });
    const bad = Buffer.alloc(20);
    bad.writeUInt32BE(5, 4);
    bad.writeUInt32BE(3, 8);
    expect(assembler.add('a', bad)).toEqual({ refused: 'part 5 of 3' });
  });
});
