import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { NoncePool } from '../../core/nonce-pool.js';
import { primaryKey, type ClusterKeyring } from '../../core/peer/cluster-keyring.js';

const SEAL_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + NONCE_BYTES;
/** What sealing adds to a message: the version byte, the nonce and the tag. */
export const SEAL_OVERHEAD = HEADER_BYTES + TAG_BYTES;

/** Where a sealed message travels: bound into its tag, so a datagram replayed as a stream frame does not open. */
export type SealChannel = 'swim' | 'stream';

export type RejectReason = 'too-short' | 'unknown-version' | 'no-key-opens';

/**
 * Seals and opens peer messages with AES-256-GCM under a cluster keyring: `version | nonce | ciphertext |
 * tag`, with the version, the nonce and the channel as associated data. Sealed under the primary key;
 * opened by whichever installed key opens it (memberlist's rule), so a rotation drops nothing. A message
 * no key opens is counted and yields null: a peer with the wrong key, or noise, never throws out of a
 * receive path.
 */
export class MessageSeal {
  private keys: Buffer[] = [];
  private ring!: ClusterKeyring;
  private readonly nonces = new NoncePool(randomFillSync);
  /** Messages dropped because they did not open, for a metric. */
  rejected = 0;

  constructor(
    ring: ClusterKeyring,
    private readonly onRejected: (reason: RejectReason) => void = () => undefined,
  ) {
    this.rekey(ring);
  }

  get keyring(): ClusterKeyring {
    return this.ring;
  }

  /** Takes a new ring (after install, use or remove): the next message is sealed under its primary. */
  rekey(ring: ClusterKeyring): void {
    this.ring = ring;
    // The primary first: it is the key most messages are sealed under, so it is tried first.
    this.keys = [primaryKey(ring), ...ring.keys.filter((key) => key !== primaryKey(ring))].map((key) =>
      Buffer.from(key, 'base64'),
    );
  }

  seal(plain: Uint8Array, channel: SealChannel): Buffer {
    return this.sealParts([plain], channel);
  }

  /**
   * Seals the parts, one after the other, as one message, into one buffer that begins with `headroom`
   * bytes left to the caller (a frame's length): a large append is copied once here rather than joined
   * before sealing, after it, and again to frame it.
   */
  sealParts(parts: readonly Uint8Array[], channel: SealChannel, headroom = 0): Buffer {
    const header = Buffer.allocUnsafe(HEADER_BYTES);
    header[0] = SEAL_VERSION;
    header.set(this.nonces.take(), 1);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0]!, header.subarray(1));
    cipher.setAAD(associatedData(header, channel));
    const encrypted = parts.map((part) => cipher.update(part));
    encrypted.push(cipher.final());
    const length = encrypted.reduce((sum, chunk) => sum + chunk.length, 0);
    const sealed = Buffer.allocUnsafe(headroom + HEADER_BYTES + length + TAG_BYTES);
    sealed.set(header, headroom);
    let at = headroom + HEADER_BYTES;
    for (const chunk of encrypted) {
      sealed.set(chunk, at);
      at += chunk.length;
    }
    sealed.set(cipher.getAuthTag(), at);
    return sealed;
  }

  open(sealed: Uint8Array, channel: SealChannel): Buffer | null {
    if (sealed.length < SEAL_OVERHEAD) return this.reject('too-short');
    if (sealed[0] !== SEAL_VERSION) return this.reject('unknown-version');
    const header = sealed.subarray(0, HEADER_BYTES);
    const body = sealed.subarray(HEADER_BYTES, sealed.length - TAG_BYTES);
    const tag = sealed.subarray(sealed.length - TAG_BYTES);
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, header.subarray(1), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(associatedData(header, channel));
        decipher.setAuthTag(tag);
        const plain = decipher.update(body);
        const rest = decipher.final();
        return rest.length === 0 ? plain : Buffer.concat([plain, rest]);
      } catch {
        // Not this key: the next one may open it.
      }
    }
    return this.reject('no-key-opens');
  }

  private reject(reason: RejectReason): null {
    this.rejected += 1;
    this.onRejected(reason);
    return null;
  }
}

function associatedData(header: Uint8Array, channel: SealChannel): Buffer {
  return Buffer.concat([header, Buffer.from(channel, 'ascii')]);
}
