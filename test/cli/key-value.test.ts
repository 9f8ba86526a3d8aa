import { describe, expect, it } from 'vitest';
import { parseKeyValuePairs } from '../../src/cli/key-value.js';
import { SchedError } from '../../src/core/errors.js';

describe('parseKeyValuePairs', () => {
  it('given KEY=VALUE pairs, when parsed, then they become a record', () => {
    expect(parseKeyValuePairs(['team=ops', 'tier=1'], 'label')).toEqual({ team: 'ops', tier: '1' });
  });

  it('given a value containing "=", when parsed, then only the first "=" splits', () => {
    expect(parseKeyValuePairs(['OPTS=a=b'], 'env')).toEqual({ OPTS: 'a=b' });
  });

  it('given an empty value, when parsed, then the key maps to an empty string', () => {
    expect(parseKeyValuePairs(['EMPTY='], 'env')).toEqual({ EMPTY: '' });
  });

  it('given a repeated key, when parsed, then the last value wins', () => {
    expect(parseKeyValuePairs(['A=1', 'A=2'], 'env')).toEqual({ A: '2' });
  });

  it('given no pairs, when parsed, then the result is undefined so nothing is sent', () => {
    expect(parseKeyValuePairs(undefined, 'env')).toBeUndefined();
    expect(parseKeyValuePairs([], 'env')).toBeUndefined();
  });

  it('given a pair without "=", when parsed, then it fails validation naming the flag and the value', () => {
    const error = catchError(() => parseKeyValuePairs(['team'], 'label'));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('--label "team" is missing "=".');
    expect(error.hint).toContain('KEY=VALUE');
  });

  it('given a pair with an empty key, when parsed, then it fails validation', () => {
    expect(catchError(() => parseKeyValuePairs(['=x'], 'env')).message).toBe('--env "=x" has an empty key.');
  });
});

function catchError(action: () => unknown): SchedError {
  try {
    action();
  } catch (error) {
    if (error instanceof SchedError) return error;
    throw error;
  }
  throw new Error('expected a SchedError');
}
