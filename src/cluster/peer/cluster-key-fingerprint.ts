import { createHash } from 'node:crypto';

/**
 * What names a cluster key where the key itself must not appear (`sched cluster keys list`, the audit, the
 * log): the first 8 hex digits of the SHA-256 of its 32 bytes. Enough to tell the keys of one ring apart and
 * to compare rings across hosts; far too little to learn anything of the key.
 */
export function clusterKeyFingerprint(key: string): string {
  return createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 8);
}
