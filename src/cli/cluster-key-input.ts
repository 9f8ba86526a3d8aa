import fs from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { SchedError } from '../core/errors.js';
import { isClusterKey } from '../core/peer/cluster-keyring.js';

/** The help every `sched cluster keys` change shares: one host at a time, and the rotation in three steps. */
export const KEY_CHANGE_HELP = `Acts on this host's daemon only: it changes the keyring that seals this node's peer traffic (AES-256-GCM) and writes it back to its --cluster-key-file, so a restart keeps it. A rotation with no downtime takes three steps, each done on every member before the next starts:

  1. install the new key (every member opens messages sealed with it),
  2. use it (every member seals with it; the old key still opens),
  3. remove the old key.

Give the key with --from-file FILE (a file holding that one key, as \`sched cluster keygen > FILE\` writes it) or --from-file - (standard input). A KEY argument works too, but lands in your shell's history and in the process list: prefer a file. The key is never printed, logged or audited; \`sched cluster keys list\` names keys by fingerprint. Admins only; peer mode only.`;

export const keyArgs = {
  key: Args.string({
    description: 'The key itself (base64); prefer --from-file, as an argument stays in shell history.',
    required: false,
    // oclif would otherwise take a missing argument from whatever stdin holds within 10 ms: --from-file - reads it.
    ignoreStdin: true,
  }),
};

export const keyFlags = {
  'from-file': Flags.string({
    summary:
      'Read the key from this file (one key, as `sched cluster keygen` prints it); - reads standard input.',
    helpValue: 'FILE',
  }),
};

/** The key a change acts on: the argument, or the one key in --from-file (or on standard input). */
export function clusterKeyInput(argument: string | undefined, fromFile: string | undefined): string {
  if (argument !== undefined && fromFile !== undefined)
    throw inputRefusal('Give the key either as an argument or with --from-file, not both.');
  if (argument === undefined && fromFile === undefined) throw inputRefusal('No key given.');
  const key =
    fromFile === undefined
      ? argument!.trim()
      : onlyKeyIn(readKeyText(fromFile), fromFile === '-' ? 'standard input' : fromFile);
  // Said here, with what to do, before anything is sent; the daemon checks it again at its own edge.
  if (!isClusterKey(key))
    throw new SchedError(
      'VALIDATION_FAILED',
      'That is not a cluster key (32 bytes in base64, 44 characters).',
      { hint: 'Make one with `sched cluster keygen > FILE` and give it with --from-file FILE.' },
    );
  return key;
}

function readKeyText(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `Cannot read the key from ${file}: ${(error as Error).message}.`,
      {
        hint: 'Give a file that holds the key, as `sched cluster keygen > FILE` writes it.',
      },
    );
  }
}

/** As in a key file: blank lines and `#` comments are skipped; exactly one key must be left. */
function onlyKeyIn(text: string, source: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (lines.length === 1) return lines[0]!;
  throw new SchedError(
    'VALIDATION_FAILED',
    lines.length === 0
      ? `${source} holds no key.`
      : `${source} holds ${lines.length} lines that could be keys; a change acts on one key.`,
    { hint: 'Give a file with the one key to act on, as `sched cluster keygen > FILE` writes it.' },
  );
}

function inputRefusal(message: string): SchedError {
  return new SchedError('VALIDATION_FAILED', message, {
    hint: 'Use --from-file FILE (a file holding the key) or --from-file - (standard input); a key typed as an argument stays in shell history.',
  });
}
