import { SchedError } from '../errors.js';
import type { DstPolicy } from '../schedule/occurrences.js';

/** Parses `--dst-gap shift|skip`. */
export function parseDstGap(text: string): DstPolicy['gap'] {
  const value = text.trim().toLowerCase();
  if (value === 'shift' || value === 'skip') return value;
  throw new SchedError('VALIDATION_FAILED', `Invalid --dst-gap "${text}".`, {
    hint:
      'Use shift (a wall time the clocks skip runs once right after the jump; the default) ' +
      'or skip (it does not run that day).',
    details: { value: text },
  });
}

/** Parses `--dst-repeat first|last|both`. */
export function parseDstRepeat(text: string): DstPolicy['repeat'] {
  const value = text.trim().toLowerCase();
  if (value === 'first' || value === 'last' || value === 'both') return value;
  throw new SchedError('VALIDATION_FAILED', `Invalid --dst-repeat "${text}".`, {
    hint:
      'Use first (a wall time the clocks show twice runs at its first occurrence; the default), ' +
      'last (only at the second) or both.',
    details: { value: text },
  });
}
