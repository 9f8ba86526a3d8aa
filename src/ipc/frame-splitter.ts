/**
 * The byte that ends every frame on the socket: node-ipc's default delimiter, kept so the wire format
 * stays `JSON \f`. It can never occur inside a frame: JSON escapes it in strings, it is not JSON
 * whitespace, and no multi-byte UTF-8 sequence contains it.
 */
export const FRAME_DELIMITER = 0x0c;

export type SplitResult = { ok: true; frames: Buffer[] } | { ok: false; heldBytes: number };

/**
 * Cuts a connection's byte stream into frames, holding at most `maxFrameBytes` of an unfinished frame:
 * a peer that sends more without a delimiter is refused instead of growing the buffer without bound.
 */
export class FrameSplitter {
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(private readonly maxFrameBytes: number) {}

  push(chunk: Buffer): SplitResult {
    const frames: Buffer[] = [];
    let start = 0;
    for (let end = chunk.indexOf(FRAME_DELIMITER); end !== -1; end = chunk.indexOf(FRAME_DELIMITER, start)) {
      const tail = chunk.subarray(start, end);
      if (this.heldBytes + tail.length > this.maxFrameBytes)
        return { ok: false, heldBytes: this.heldBytes + tail.length };
      frames.push(this.held.length === 0 ? tail : Buffer.concat([...this.held, tail]));
      this.held = [];
      this.heldBytes = 0;
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (this.heldBytes + rest.length > this.maxFrameBytes)
      return { ok: false, heldBytes: this.heldBytes + rest.length };
    if (rest.length > 0) {
      this.held.push(rest);
      this.heldBytes += rest.length;
    }
    return { ok: true, frames };
  }

  /** Part of a frame arrived and its end did not: true when a connection closes mid-frame. */
  get holdsPartialFrame(): boolean {
    return this.heldBytes > 0;
  }
}
