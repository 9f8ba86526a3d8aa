import { describe, expect, it } from 'vitest';
import { nearestCommands, suggestionText } from '../../src/cli/command-suggestions.js';

const commands = [
  'ls',
  'add',
  'cancel',
  'pause',
  'resume',
  'history',
  'daemon status',
  'daemon stop',
  'daemon run',
];

describe('nearestCommands', () => {
  it('names the command one edit away', () => {
    expect(nearestCommands('lss', commands)).toEqual(['ls']);
  });

  it('names the command a short word begins', () => {
    expect(nearestCommands('hist', commands)).toEqual(['history']);
  });

  it('names nothing for a word far from every command', () => {
    expect(nearestCommands('run', commands)).toEqual([]);
  });

  it('keeps only those about as near as the nearest', () => {
    expect(nearestCommands('daemon stats', commands)).toEqual(['daemon status']);
  });
});

describe('suggestionText', () => {
  it('lists the suggestions as commands to type', () => {
    expect(suggestionText('sched', ['pause', 'resume'])).toBe(
      'Did you mean `sched pause` or `sched resume`?',
    );
  });

  it('is empty when there is nothing to suggest', () => {
    expect(suggestionText('sched', [])).toBe('');
  });
});
