import { inputError } from '../input-error.js';

/** 32 bytes in standard base64: 43 characters and one `=` of padding. */
const KEY_PATTERN = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
/** A ring stays small: a rotation needs two keys at once, a few more is already a mistake to fix. */
export const MAX_CLUSTER_KEYS = 16;

/**
 * The keys that seal peer traffic (AES-256-GCM), as base64 text, the primary first: the primary seals
 * every message sent, and every key is tried on a message received, so a rotation is install a new key
 * on every member, make it primary on every member, then remove the old one, with no message refused on
 * the way (the rules of memberlist's and Serf's keyrings).
 */
export interface ClusterKeyring {
  readonly keys: readonly string[];
}

export function primaryKey(ring: ClusterKeyring): string {
  return ring.keys[0]!;
}

export function isClusterKey(text: string): boolean {
  return KEY_PATTERN.test(text);
}

/**
 * The key file: one key per line, the primary on the first, blank lines and `#` comments ignored. So the
 * output of `sched cluster keygen > cluster.key` is a key file as it is, a rotation is a one-line diff,
 * and a key never needs quoting.
 */
export function parseKeyFile(text: string, file: string): ClusterKeyring {
  const keys: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!isClusterKey(line))
      throw inputError(
        'VALIDATION_FAILED',
        `Line ${index + 1} of the cluster key file ${file} is not a key (32 bytes in base64, 44 characters).`,
        'Make a key with `sched cluster keygen` and put one key per line, the primary first.',
        { keyFile: file, line: index + 1 },
      );
    if (!keys.includes(line)) keys.push(line);
  }
  if (keys.length === 0)
    throw inputError(
      'VALIDATION_FAILED',
      `The cluster key file ${file} holds no key.`,
      'Make one with `sched cluster keygen > <file>`, and copy the same file to every host.',
      { keyFile: file },
    );
  if (keys.length > MAX_CLUSTER_KEYS) throw tooManyKeys(keys.length);
  return { keys };
}

export function formatKeyFile(ring: ClusterKeyring): string {
  return `${ring.keys.join('\n')}\n`;
}

/** Adds a key that opens messages; the primary is unchanged. Installing a key already there changes nothing. */
export function installKey(ring: ClusterKeyring, key: string): ClusterKeyring {
  if (!isClusterKey(key)) throw notAKey();
  if (ring.keys.includes(key)) return ring;
  if (ring.keys.length >= MAX_CLUSTER_KEYS) throw tooManyKeys(ring.keys.length + 1);
  return { keys: [...ring.keys, key] };
}

/** Makes an installed key the primary; the old primary stays installed, so what it sealed still opens. */
export function useKey(ring: ClusterKeyring, key: string): ClusterKeyring {
  if (!ring.keys.includes(key))
    throw inputError(
      'VALIDATION_FAILED',
      'That key is not installed, so it cannot be made primary.',
      'Install it on every member first (`sched cluster keys install <key>`), then use it.',
    );
  return { keys: [key, ...ring.keys.filter((other) => other !== key)] };
}

/** Drops a key; the primary cannot go, since every message this member sends is sealed under it. */
export function removeKey(ring: ClusterKeyring, key: string): ClusterKeyring {
  if (primaryKey(ring) === key)
    throw inputError(
      'INVALID_STATE',
      'The primary key cannot be removed: every message this member sends is sealed under it.',
      'Make another key primary on every member first (`sched cluster keys use <key>`), then remove this one.',
    );
  if (!ring.keys.includes(key)) return ring;
  return { keys: ring.keys.filter((other) => other !== key) };
}

function notAKey() {
  return inputError(
    'VALIDATION_FAILED',
    'That is not a cluster key (32 bytes in base64, 44 characters).',
    'Make one with `sched cluster keygen`.',
  );
}

function tooManyKeys(count: number) {
  return inputError(
    'VALIDATION_FAILED',
    `A cluster keyring holds at most ${MAX_CLUSTER_KEYS} keys; this one would hold ${count}.`,
    'Remove the keys no member seals with any more (`sched cluster keys remove <key>`).',
  );
}
