import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SchedError } from '../core/errors.js';

/**
 * `--payload` takes JSON text, or `@path` to read it from a file (as curl's `-d @file` does). The text
 * is sent as typed: the daemon parses and size-checks it, so both kinds fail the same way there.
 */
export async function readPayloadArgument(value: string, cwd: string): Promise<string> {
  if (!value.startsWith('@')) return value;
  const file = path.resolve(cwd, value.slice(1));
  if (value.length === 1) {
    throw new SchedError('VALIDATION_FAILED', '--payload "@" names no file.', {
      hint: 'Write --payload @path/to/payload.json, or give the JSON itself.',
      details: { value },
    });
  }
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new SchedError('VALIDATION_FAILED', `Cannot read the payload file ${file} (${reason}).`, {
      hint: 'Check the path after "@"; it is relative to the current directory.',
      details: { path: file, reason },
    });
  }
}
