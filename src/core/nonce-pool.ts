const NONCE_BYTES = 12;
const NONCES_PER_FILL = 1024;

/**
 * 96-bit random nonces for AES-GCM, never one handed out twice: cut from a buffer the system's CSPRNG
 * (`fill`) fills 1,024 nonces at a time, since one call per nonce costs more than sealing a short value.
 */
export class NoncePool {
  private pool = new Uint8Array(0);
  private next = 0;

  constructor(private readonly fill: (bytes: Uint8Array) => void) {}

  take(): Uint8Array {
    if (this.next + NONCE_BYTES > this.pool.length) {
      this.pool = new Uint8Array(NONCE_BYTES * NONCES_PER_FILL);
      this.fill(this.pool);
      this.next = 0;
    }
    const nonce = this.pool.subarray(this.next, this.next + NONCE_BYTES);
    this.next += NONCE_BYTES;
    return nonce;
  }
}
