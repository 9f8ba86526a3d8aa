import fs from 'node:fs';
import type { ClientTarget } from '../client/sched-client.js';
import { SchedError } from '../core/errors.js';
import { clientSocketPath } from './client-socket.js';

/** The flags that point a command at a remote daemon (see src/cli/remote-flags.ts). */
export interface RemoteFlags {
  remote?: string;
  'token-file'?: string;
  'ca-file'?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The remote daemon asked for, by --remote or SCHED_REMOTE; undefined for this host's daemon. */
export function remoteUrl(flags: RemoteFlags, env: Env): string | undefined {
  return nonEmpty(flags.remote) ?? nonEmpty(env.SCHED_REMOTE);
}

/**
 * Where a command's requests go. With --remote (or SCHED_REMOTE): that daemon's HTTPS API, with the token
 * from --token-file (or SCHED_TOKEN_FILE), else SCHED_TOKEN, and the CA from --ca-file (or SCHED_CA_FILE).
 * Without: this host's socket. The token is read and passed on, never put in a message.
 */
export async function clientTarget(flags: RemoteFlags, env: Env): Promise<ClientTarget> {
  const url = remoteUrl(flags, env);
  if (url === undefined) {
    const stray =
      flags['token-file'] !== undefined
        ? '--token-file'
        : flags['ca-file'] !== undefined
          ? '--ca-file'
          : null;
    if (stray !== null) {
      throw new SchedError(
        'VALIDATION_FAILED',
        `${stray} is for a remote daemon, and no --remote was given.`,
        {
          hint: 'Add --remote https://HOST:PORT (or set SCHED_REMOTE), or leave it out to use this host’s daemon.',
        },
      );
    }
    return { socketPath: await clientSocketPath(env) };
  }
  const caFile = nonEmpty(flags['ca-file']) ?? nonEmpty(env.SCHED_CA_FILE);
  return { url, token: readToken(flags, env), ...(caFile === undefined ? {} : { ca: readCa(caFile) }) };
}

function readToken(flags: RemoteFlags, env: Env): string {
  const file = nonEmpty(flags['token-file']) ?? nonEmpty(env.SCHED_TOKEN_FILE);
  if (file === undefined) {
    const token = nonEmpty(env.SCHED_TOKEN);
    if (token !== undefined) return token.trim();
    throw new SchedError('UNAUTHENTICATED', 'A remote daemon needs an API token, and none was given.', {
      hint: 'Put the token in SCHED_TOKEN, or in a file (mode 0600) named by --token-file or SCHED_TOKEN_FILE; an admin makes one with `sched token create` on the daemon’s host.',
    });
  }
  const token = readFile(file, 'token file', '--token-file or SCHED_TOKEN_FILE').trim();
  if (token === '') {
    throw new SchedError('UNAUTHENTICATED', `The token file ${file} is empty.`, {
      hint: 'Write the token `sched token create` printed into it, alone on one line.',
    });
  }
  return token;
}

function readCa(file: string): string {
  const pem = readFile(file, 'CA file', '--ca-file or SCHED_CA_FILE');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new SchedError('VALIDATION_FAILED', `The CA file ${file} holds no PEM certificate.`, {
      hint: 'Give the PEM certificate (-----BEGIN CERTIFICATE-----) of the CA that signed the daemon’s certificate, or the daemon’s own when it is self-signed.',
    });
  }
  return pem;
}

function readFile(file: string, what: string, source: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new SchedError('VALIDATION_FAILED', `The ${what} ${file} cannot be read (${reason}).`, {
      hint: `Give a readable file with ${source}.`,
      details: { file },
    });
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
