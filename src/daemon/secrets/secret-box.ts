import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { SchedError } from '../../core/errors.js';
import { NoncePool } from '../../core/nonce-pool.js';
import type { Keyring } from './keyring.js';

/**
 * Marks a stored value as sealed; the key's id follows, so a value names the key that opens it. v1: each
 * value sealed alone. v2: a job's values sealed together, each value holding its slice of the ciphertext.
 */
const PREFIX = 'sealed:v1:';
const GROUP_PREFIX = 'sealed:v2:';
const SEALED_VALUE = /^sealed:v[12]:/;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A value to seal or open with the others of its job, and where it sits (bound to it: a value moved does not open). */
export interface PlacedValue {
  where: string;
  text: string;
}

/**
 * Seals a job's secret values with AES-256-GCM under the keyring's current key (together, see
 * sealTogether) and opens them under any key it holds, values sealed one by one before (v1) included.
 */
export class SecretBox {
  private readonly nonces = new NoncePool(randomFillSync);

  constructor(
    readonly keyring: Keyring,
    private readonly keyFileShown: string,
  ) {}

  /**
   * The values of one job sealed in one AES-256-GCM operation (creating a cipher costs more than sealing a
   * short value, and a job's values are always written together). Each sealed value is
   * `sealed:v2:<key id>:<nonce and tag>:<its slice of the ciphertext>`; the job's id, every value's place
   * and every slice's length are associated data, so values moved between places, jobs or slices do not open.
   */
  sealTogether(values: PlacedValue[], jobId: string): string[] {
    const { id, key } = this.keyring.current();
    const nonce = this.nonces.take();
    const plain = values.map(({ text }) => Buffer.from(text, 'utf8'));
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(
      groupAad(
        jobId,
        values,
        plain.map((bytes) => bytes.length),
      ),
    );
    const body = Buffer.concat([cipher.update(Buffer.concat(plain)), cipher.final()]);
    const header = Buffer.concat([nonce, cipher.getAuthTag()]).toString('base64url');
    let offset = 0;
    return plain.map((bytes) => {
      const slice = body.subarray(offset, (offset += bytes.length));
      return `${GROUP_PREFIX}${id}:${header}:${slice.toString('base64url')}`;
    });
  }

  /** The texts of values sealed together by sealTogether, in the same places; SECRET_KEY_MISMATCH otherwise. */
  openTogether(values: PlacedValue[], jobId: string): string[] {
    const parts = values.map(({ text }) => text.slice(GROUP_PREFIX.length).split(':'));
    const [keyId, header] = parts[0] ?? [];
    if (keyId === undefined || header === undefined) return [];
    const key = this.keyring.find(keyId);
    if (key === undefined) throw this.missingKey(jobId, keyId);
    const mismatch = () => this.mismatch(jobId, keyId);
    if (parts.some((part) => part.length !== 3 || part[0] !== keyId || part[1] !== header)) throw mismatch();
    const sealed = Buffer.from(header, 'base64url');
    const slices = parts.map((part) => Buffer.from(part[2]!, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
      decipher.setAAD(
        groupAad(
          jobId,
          values,
          slices.map((slice) => slice.length),
        ),
      );
      decipher.setAuthTag(sealed.subarray(NONCE_BYTES));
      const plain = Buffer.concat([decipher.update(Buffer.concat(slices)), decipher.final()]);
      let offset = 0;
      return slices.map((slice) => plain.toString('utf8', offset, (offset += slice.length)));
    } catch {
      throw mismatch();
    }
  }

  /**
   * The text of a value sealed alone (v1: nonce, ciphertext and tag, the job's id as associated data);
   * throws SECRET_KEY_MISMATCH when no key at hand opens it.
   */
  open(value: string, jobId: string): string {
    const keyId = keyIdOf(value);
    const key = keyId === null ? undefined : this.keyring.find(keyId);
    if (key === undefined) throw this.missingKey(jobId, keyId ?? 'unknown');
    const sealed = Buffer.from(value.slice(PREFIX.length + keyId!.length + 1), 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(jobId, 'utf8'));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const body = sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw this.mismatch(jobId, keyId!);
    }
  }

  private mismatch(jobId: string, keyId: string): SchedError {
    return new SchedError(
      'SECRET_KEY_MISMATCH',
      `The secrets of job ${jobId} do not open with key ${keyId} of ${this.keyFileShown}: they were changed, or belong to another job.`,
      {
        hint: 'The store was altered outside sched; set the job’s --env, --header and --payload values again with `sched update`.',
        details: { jobId, keyId, keyFile: this.keyFileShown },
      },
    );
  }

  missingKey(jobId: string, keyId: string): SchedError {
    return new SchedError(
      'SECRET_KEY_MISMATCH',
      `The secrets of job ${jobId} are sealed under key ${keyId}, which ${this.keyFileShown} does not hold.`,
      {
        hint: `Start the daemon with the key file the store was written with (the key_file setting, or ${this.keyFileShown}); every daemon sharing a store needs the same key file.`,
        details: { jobId, keyId, keyFile: this.keyFileShown },
      },
    );
  }
}

/** Whether a stored value is sealed (values stored before sealing existed are plain text). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && SEALED_VALUE.test(value);
}

/** Whether a stored value was sealed together with the other values of its job (see sealTogether). */
export function isSealedTogether(value: string): boolean {
  return value.startsWith(GROUP_PREFIX);
}

/** The id of the key that sealed `value`; null when it is not a sealed value. */
export function keyIdOf(value: string): string | null {
  if (!isSealed(value)) return null;
  const end = value.indexOf(':', PREFIX.length);
  return end < 0 ? null : value.slice(PREFIX.length, end);
}

function groupAad(jobId: string, values: PlacedValue[], lengths: number[]): Buffer {
  return Buffer.from([jobId, ...values.map(({ where }, i) => `${where}=${lengths[i]}`)].join('\0'), 'utf8');
}
