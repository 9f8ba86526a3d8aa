import { MAX_RAFT_MESSAGE } from '../../core/peer/wire-fields.js';

/** Each part starts with the message's number, the part's place and the count of parts (u32 each). */
const PART_HEADER_BYTES = 12;
/** Messages being put together at once, one per connection that sends parts; the oldest goes first. */
const MAX_ASSEMBLIES = 16;

/** `body` in parts of at most `maxPartBytes` each, header included, numbered `messageId`. */
export function splitIntoParts(body: Uint8Array, maxPartBytes: number, messageId: number): Buffer[] {
  const chunk = maxPartBytes - PART_HEADER_BYTES;
  const count = Math.ceil(body.length / chunk);
  return Array.from({ length: count }, (_, index) => {
    const part = Buffer.allocUnsafe(PART_HEADER_BYTES);
    part.writeUInt32BE(messageId >>> 0, 0);
    part.writeUInt32BE(index, 4);
    part.writeUInt32BE(count, 8);
    return Buffer.concat([part, body.subarray(index * chunk, (index + 1) * chunk)]);
  });
}

export type PartResult = { done: Buffer } | { pending: true } | { refused: string };

interface Assembly {
  messageId: number;
  count: number;
  parts: Buffer[];
  bytes: number;
}

/**
 * Puts messages sent in parts together again, per connection (its parts come in order on it). A part out
 * of order, of another message, or past the bound on a message's size drops what was gathered; memory
 * is bounded by the bound times the connections assembling at once.
 */
export class PartsAssembler {
  private readonly assemblies = new Map<string, Assembly>();

  constructor(private readonly maxMessageBytes = MAX_RAFT_MESSAGE) {}

  add(connection: string, part: Uint8Array): PartResult {
    if (part.length <= PART_HEADER_BYTES) return { refused: 'a part without a body' };
    const header = Buffer.from(part.buffer, part.byteOffset, PART_HEADER_BYTES);
    const [messageId, index, count] = [
      header.readUInt32BE(0),
      header.readUInt32BE(4),
      header.readUInt32BE(8),
    ];
    const body = Buffer.from(part.subarray(PART_HEADER_BYTES));
    if (count < 2 || index >= count) return this.refuse(connection, `part ${index} of ${count}`);
    let assembly = this.assemblies.get(connection);
    if (index === 0) {
      assembly = { messageId, count, parts: [], bytes: 0 };
      this.assemblies.delete(connection);
      this.assemblies.set(connection, assembly);
      if (this.assemblies.size > MAX_ASSEMBLIES) this.assemblies.delete(this.assemblies.keys().next().value!);
    }
    if (
      !assembly ||
      assembly.messageId !== messageId ||
      assembly.count !== count ||
      assembly.parts.length !== index
    )
      return this.refuse(connection, `part ${index} of ${count} out of order`);
    assembly.bytes += body.length;
    if (assembly.bytes > this.maxMessageBytes)
      return this.refuse(connection, `a message over ${this.maxMessageBytes} bytes`);
    assembly.parts.push(body);
    if (assembly.parts.length < count) return { pending: true };
    this.assemblies.delete(connection);
    return { done: Buffer.concat(assembly.parts, assembly.bytes) };
  }

  private refuse(connection: string, reason: string): PartResult {
    this.assemblies.delete(connection);
    return { refused: reason };
  }
}
