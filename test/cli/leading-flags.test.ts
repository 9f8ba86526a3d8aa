import { describe, expect, it } from 'vitest';
import { commandFirst } from '../../src/cli/leading-flags.js';

describe('flags that say where the daemon is, written before the command', () => {
  it.each([
    [
      ['--remote', 'https://h:8443', 'ls', '--json'],
      ['ls', '--json', '--remote', 'https://h:8443'],
    ],
    [
      ['--remote=https://h:8443', '--ca-file', 'ca.pem', '--token-file', 't', 'show', 'x'],
      ['show', 'x', '--remote=https://h:8443', '--ca-file', 'ca.pem', '--token-file', 't'],
    ],
    [
      ['--remote', 'https://h:8443', 'add', 'x', '--every', '1m', '--', './run', '--remote', 'y'],
      ['add', 'x', '--every', '1m', '--remote', 'https://h:8443', '--', './run', '--remote', 'y'],
    ],
    [
      ['--remote', 'https://h:8443', 'daemon', 'status'],
      ['daemon', 'status', '--remote', 'https://h:8443'],
    ],
  ])('Given %j, when read, then the command comes first: %j', (args, expected) => {
    expect(commandFirst(args)).toEqual(expected);
  });

  it('Given no such flag first, when read, then nothing moves', () => {
    expect(commandFirst(['--version'])).toEqual(['--version']);
    expect(commandFirst(['ls', '--remote', 'u'])).toEqual(['ls', '--remote', 'u']);
  });
});
