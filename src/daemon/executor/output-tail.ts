export const OUTPUT_TAIL_BYTES = 64 * 1024;

/** Keeps only the last `limitBytes` of a stream, so memory stays bounded whatever the child prints. */
export class OutputTail {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  /** Every byte pushed, the dropped ones included: what was cut is `totalBytes` less the tail's size. */
  private total = 0;

  constructor(private readonly limitBytes = OUTPUT_TAIL_BYTES) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.total += chunk.length;
    for (
      let first = this.chunks[0];
      first && this.bytes - first.length >= this.limitBytes;
      first = this.chunks[0]
    ) {
      this.chunks.shift();
      this.bytes -= first.length;
    }
  }

  get totalBytes(): number {
    return this.total;
  }

  toString(): string {
    const joined = Buffer.concat(this.chunks);
    let start = Math.max(0, joined.length - this.limitBytes);
    // The cut may land inside a multi-byte character; skip its continuation bytes rather than emit U+FFFD.
    if (start > 0) {
      for (
        let skipped = 0;
        skipped < 3 && start < joined.length && (joined[start]! & 0xc0) === 0x80;
        skipped++
      )
        start++;
    }
    return joined.subarray(start).toString('utf8');
  }
}
