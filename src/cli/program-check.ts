import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { JobFields } from './job-flags.js';

/**
 * Why the program of a new command job will not start, or null when it looks runnable. A program with a
 * slash is looked up relative to the job's directory, as the run will; a bare name on PATH (the job's
 * --env PATH, else this shell's). A --shell script is not parsed: /bin/sh decides what it runs.
 */
export function missingProgramWarning(fields: JobFields, shellPath: string | undefined): string | null {
  const program = fields.argv?.[0];
  if (program === undefined || fields.shell !== undefined || fields.http !== undefined) return null;
  if (program.includes('/')) {
    const directory = fields.cwd ?? process.cwd();
    const problem = whyNotExecutable(path.resolve(directory, program));
    return problem === null ? null : `${program}: ${problem} in ${directory} (the job's working directory)`;
  }
  const searchPath = fields.env?.PATH ?? shellPath ?? '';
  const found = searchPath
    .split(path.delimiter)
    .some((dir) => dir !== '' && whyNotExecutable(path.join(dir, program)) === null);
  return found ? null : `${program}: not found on PATH (${searchPath || 'empty'})`;
}

function whyNotExecutable(file: string): string | null {
  try {
    if (!statSync(file).isFile()) return 'not a file';
  } catch {
    return 'not found';
  }
  try {
    accessSync(file, constants.X_OK);
    return null;
  } catch {
    return 'not executable';
  }
}
