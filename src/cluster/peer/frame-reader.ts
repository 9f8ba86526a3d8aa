/** A frame's length prefix. */
export const FRAME_LENGTH_BYTES = 4;

export type FrameEvent = { frame: Buffer } | { tooLarge: number };

/** A frame on a peer stream: its body's length as 4 bytes, big-endian, then the body. */
export function frame(body: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(FRAME_LENGTH_BYTES + body.length);
  framed.set(body, FRAME_LENGTH_BYTES);
  return frameInPlace(framed);
}

/** A frame of the body that follows the first FRAME_LENGTH_BYTES of `buffer`, its length written there. */
export function frameInPlace(buffer: Buffer): Buffer {
  buffer.writeUInt32BE(buffer.length - FRAME_LENGTH_BYTES, 0);
  return buffer;
}

/**
 * Cuts a byte stream into length-prefixed frames, holding at most one frame of at most `maxBody` bytes: a
 * length prefix above it is reported as soon as its 4 bytes are in, before any of its body is kept, so a
 * peer cannot make this side buffer more than one frame's worth. Chunks are joined once a frame is whole.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The length of the frame being read, once its prefix is in. */
  private expected: number | null = null;
  private failed = false;

  constructor(private maxBody: number) {}

  /** Raises (or lowers) the bound for the frames after the one being read. */
  allow(maxBody: number): void {
    this.maxBody = maxBody;
  }

  push(chunk: Buffer): void {
    if (this.failed) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /**
   * The next whole frame, or a length over the bound (after which nothing more is read); null until more
   * bytes come. One at a time, so a bound raised after a frame applies to the very next one.
   */
  next(): FrameEvent | null {
    if (this.failed) return null;
    if (this.expected === null) {
      if (this.buffered < FRAME_LENGTH_BYTES) return null;
      const length = this.consume(FRAME_LENGTH_BYTES).readUInt32BE(0);
      if (length > this.maxBody) {
        this.failed = true;
        this.chunks = [];
        this.buffered = 0;
        return { tooLarge: length };
      }
      this.expected = length;
    }
    if (this.buffered < this.expected) return null;
    const body = this.consume(this.expected);
    this.expected = null;
    return { frame: body };
  }

  private consume(bytes: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const rest = joined.subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return joined.subarray(0, bytes);
  }
}
