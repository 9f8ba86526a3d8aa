import { Errors } from '@oclif/core';
import { chalkStderr } from 'chalk';
import { ERROR_CODES, type ErrorCode } from '../core/errors.js';

/** How a failed command is reported: a user error (one line and a hint) or a bug (with its stack). */
export interface Failure {
  kind: 'user' | 'bug';
  exitCode: number;
  code: ErrorCode;
  message: string;
  hint: string | undefined;
  details: Record<string, unknown>;
  stack: string | undefined;
}

export const BUG_HINT = 'This is a bug in sched; please report it.';

const ANSI_ESCAPE = new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g');

interface SchedErrorLike extends Error {
  code: ErrorCode;
  hint?: string;
  details?: Record<string, unknown>;
}

// By name and code rather than instanceof: the error may come from another copy of the module.
function isSchedErrorLike(error: unknown): error is SchedErrorLike {
  if (!(error instanceof Error) || error.name !== 'SchedError') return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

function isUsageError(error: unknown): error is Error {
  // oclif rethrows a failing flag `parse` as the original error with "Parsing --flag" prefixed.
  return (
    error instanceof Errors.CLIError || (error instanceof Error && error.message.startsWith('Parsing --'))
  );
}

/**
 * oclif's parse messages span lines, list every argument, end in "See more help with --help", and
 * explain greedy multi-value flags that sched does not use; we want one plain sentence.
 */
function usageMessage(error: Error): string {
  const missing = (error as { args?: { name?: string }[] }).args;
  if (error.message.startsWith('Missing') && Array.isArray(missing) && missing.length > 0) {
    return `Missing required argument${missing.length === 1 ? '' : 's'}: ${missing.map((arg) => (arg.name ?? '').toUpperCase()).join(', ')}.`;
  }
  return error.message
    .replace(ANSI_ESCAPE, '')
    .replace(/^Parsing (--\S+)\s*\n\s*/, '$1: ')
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) =>
        line && line !== 'See more help with --help' && !/^The following errors? occurred:$/.test(line),
    )
    .join('; ');
}

export function classifyFailure(error: unknown, usageCommand: string): Failure {
  if (isSchedErrorLike(error)) {
    return {
      kind: 'user',
      exitCode: ERROR_CODES[error.code],
      code: error.code,
      message: error.message,
      hint: error.hint,
      details: error.details ?? {},
      stack: undefined,
    };
  }
  if (isUsageError(error)) {
    return {
      kind: 'user',
      exitCode: ERROR_CODES.VALIDATION_FAILED,
      code: 'VALIDATION_FAILED',
      message: usageMessage(error),
      hint: `See \`${usageCommand} --help\` for usage.`,
      details: {},
      stack: undefined,
    };
  }
  const asError = error instanceof Error ? error : new Error(String(error));
  return {
    kind: 'bug',
    exitCode: ERROR_CODES.INTERNAL,
    code: 'INTERNAL',
    message: asError.message,
    hint: BUG_HINT,
    details: {},
    stack: asError.stack,
  };
}

/** The `--json` error envelope's `error` object. */
export function toErrorJson(failure: Failure, at: Date): Record<string, unknown> {
  return {
    code: failure.code,
    message: failure.message,
    hint: failure.hint ?? null,
    details: failure.details,
    timestamp: at.toISOString(),
  };
}

/** What a person sees: one line and a hint for a user error, the stack for a bug. */
export function renderFailure(failure: Failure): string {
  if (failure.kind === 'bug')
    return `${failure.stack ?? failure.message}\n\n${chalkStderr.bold(failure.hint)}\n`;
  const hint = failure.hint ? `${chalkStderr.dim('Hint:')} ${failure.hint}\n` : '';
  return `${chalkStderr.red.bold('Error:')} ${failure.message}\n${hint}`;
}
