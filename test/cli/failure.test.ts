import { Errors } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { BUG_HINT, classifyFailure } from '../../src/cli/failure.js';
import { SchedError } from '../../src/core/errors.js';

describe('classifyFailure', () => {
  it('given a SchedError, when classified, then it is a user error with its own code, hint and exit code', () => {
    const error = new SchedError('JOB_NOT_FOUND', 'No job named "x".', {
      hint: 'See `sched ls`.',
      details: { ref: 'x' },
    });
    expect(classifyFailure(error, 'sched show')).toMatchObject({
      kind: 'user',
      exitCode: 3,
      code: 'JOB_NOT_FOUND',
      message: 'No job named "x".',
      hint: 'See `sched ls`.',
      details: { ref: 'x' },
    });
  });

  it('given an error that only looks like a SchedError (another module copy), when classified, then it is still a user error', () => {
    const error = Object.assign(new Error('Daemon down.'), {
      name: 'SchedError',
      code: 'DAEMON_UNAVAILABLE',
      hint: 'Start it.',
    });
    expect(classifyFailure(error, 'sched ls')).toMatchObject({
      kind: 'user',
      exitCode: 7,
      code: 'DAEMON_UNAVAILABLE',
    });
  });

  it('given an oclif error over several lines, when classified, then it is one line of VALIDATION_FAILED, exit 2', () => {
    const error = new Errors.CLIError(
      'The following errors occurred:\n  --cron cannot be used with --at\n  --at cannot be used with --cron\nSee more help with --help',
    );
    expect(classifyFailure(error, 'sched add')).toMatchObject({
      kind: 'user',
      exitCode: 2,
      code: 'VALIDATION_FAILED',
      message: '--cron cannot be used with --at; --at cannot be used with --cron',
      hint: 'See `sched add --help` for usage.',
    });
  });

  it('given a missing required argument, when classified, then the message names it without oclif notes', () => {
    const error = Object.assign(
      new Errors.CLIError(
        'Missing 1 required arg:\nname  Unique name\n\nNote: --env allows multiple values.',
      ),
      {
        args: [{ name: 'name' }],
      },
    );
    expect(classifyFailure(error, 'sched add').message).toBe('Missing required argument: NAME.');
  });

  it('given a failing flag parser, when classified, then it is a usage error too', () => {
    const error = new Error(
      'Parsing --limit \n\tExpected an integer but received: ten\nSee more help with --help',
    );
    expect(classifyFailure(error, 'sched ls')).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: '--limit: Expected an integer but received: ten',
    });
  });

  it('given any other error, when classified, then it is a bug with its stack, exit 1', () => {
    const error = new TypeError('x is undefined');
    const failure = classifyFailure(error, 'sched ls');
    expect(failure).toMatchObject({ kind: 'bug', exitCode: 1, code: 'INTERNAL', hint: BUG_HINT });
    expect(failure.stack).toContain('TypeError: x is undefined');
  });

  it('given a thrown non-error, when classified, then it is a bug', () => {
    expect(classifyFailure('oops', 'sched ls')).toMatchObject({ kind: 'bug', message: 'oops' });
  });
});
