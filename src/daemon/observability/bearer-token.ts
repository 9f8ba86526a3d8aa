import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { SchedError } from '../../core/errors.js';

/**
 * The token in `metrics_token_file`, trimmed. Held to the secret key's rule: a file that others may read
 * (any group or other bit) is refused, since a token everyone on the host can read guards nothing.
 */
export function readBearerToken(file: string): string {
  const invalid = (problem: string, hint: string) =>
    new SchedError('VALIDATION_FAILED', `The metrics token file ${file} (metrics_token_file) ${problem}.`, {
      hint,
      details: { metricsTokenFile: file },
    });
  let token: string;
  try {
    const mode = fs.statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0)
      throw invalid(`is readable or writable by others (mode 0${mode.toString(8)})`, `chmod 600 ${file}`);
    token = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if (error instanceof SchedError) throw error;
    throw invalid(
      `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      'Create it with the token on one line, readable by the daemon only: openssl rand -hex 32 > FILE; chmod 600 FILE.',
    );
  }
  if (token === '')
    throw invalid('is empty', 'Put a long random token in it: openssl rand -hex 32 > FILE; chmod 600 FILE.');
  return token;
}

/**
 * Whether an `Authorization` header carries `Bearer <token>`. Both sides are hashed first so the
 * comparison takes the same time whatever the length or the first wrong byte of a guess.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const offered = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(offered), digest(token)) && offered !== '';
}
