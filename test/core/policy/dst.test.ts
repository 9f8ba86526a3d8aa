import { describe, expect, it } from 'vitest';
import { parseDstGap, parseDstRepeat } from '../../../src/core/policy/dst.js';

describe('parseDstGap', () => {
  it.each(['shift', 'skip', ' SKIP '])('given "%s", accepts it', (text) => {
    expect(['shift', 'skip']).toContain(parseDstGap(text));
  });

  it('given an unknown word, throws VALIDATION_FAILED with a hint naming both choices', () => {
    expect(() => parseDstGap('jump')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', hint: expect.stringMatching(/shift.*skip/) }),
    );
  });
});

describe('parseDstRepeat', () => {
  it.each([
    ['first', 'first'],
    ['last', 'last'],
    ['Both', 'both'],
  ])('given "%s", returns %s', (text, expected) => {
    expect(parseDstRepeat(text)).toBe(expected);
  });

  it('given an unknown word, throws VALIDATION_FAILED with a hint naming the choices', () => {
    expect(() => parseDstRepeat('twice')).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        hint: expect.stringMatching(/first.*last.*both/),
      }),
    );
  });
});
