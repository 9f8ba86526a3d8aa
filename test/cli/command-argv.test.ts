import { describe, expect, it } from 'vitest';
import { assertNoStrayArguments, splitAtDoubleDash } from '../../src/cli/command-argv.js';

describe('splitAtDoubleDash', () => {
  it('given a command after "--", when split, then it is taken verbatim, flags included', () => {
    expect(splitAtDoubleDash(['tick', '--every', '1s', '--', 'sh', '-c', 'echo hi', '--json'])).toEqual({
      own: ['tick', '--every', '1s'],
      command: ['sh', '-c', 'echo hi', '--json'],
    });
  });

  it('given a command that repeats an earlier word, when split, then its order is kept', () => {
    expect(splitAtDoubleDash(['tick', '--every', '1s', '--', 'echo', '1s']).command).toEqual(['echo', '1s']);
  });

  it('given a second "--", when split, then it belongs to the command', () => {
    expect(splitAtDoubleDash(['a', '--', 'git', 'log', '--', 'file']).command).toEqual([
      'git',
      'log',
      '--',
      'file',
    ]);
  });

  it('given no "--", when split, then there is no command', () => {
    expect(splitAtDoubleDash(['tick', '--shell', 'echo hi'])).toEqual({
      own: ['tick', '--shell', 'echo hi'],
      command: undefined,
    });
  });

  it('given "--" with nothing after it, when split, then the command is empty', () => {
    expect(splitAtDoubleDash(['tick', '--']).command).toEqual([]);
  });
});

describe('assertNoStrayArguments', () => {
  it('given only the declared arguments, when checked, then it passes', () => {
    expect(() => assertNoStrayArguments(['tick'], 1, 'example')).not.toThrow();
  });

  it('given words beyond the declared arguments, when checked, then it fails validation with a hint about "--"', () => {
    expect(() =>
      assertNoStrayArguments(['tick', 'echo', 'hi'], 1, 'sched add tick --every 5m -- echo hi'),
    ).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: 'Unexpected arguments: echo hi.',
        hint: expect.stringContaining('"--"'),
      }),
    );
  });
});
