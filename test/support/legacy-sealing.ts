import { createCipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from '../../src/daemon/secrets/keyring.js';

/**
 * A value sealed alone, as sched stored secrets before it sealed a job's values together (v1): a random
 * nonce, the ciphertext and the tag, the job's id as associated data. Stores written then still hold them.
 */
export function sealedAlone(keyring: Keyring, text: string, jobId: string): string {
  const { id, key } = keyring.current();
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(jobId, 'utf8'));
  const sealed = Buffer.concat([nonce, cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `sealed:v1:${id}:${sealed.toString('base64url')}`;
}
