/** A part's header: the transfer's id (8 bytes), the part's place and the count of parts (u32 each), the file's size (6 bytes). */
const HEADER_BYTES = 22;
const ID_BYTES = 8;

/** One part of a snapshot file on its way to a member (see SnapshotSending). */
export interface SnapshotPart {
  /** The transfer's id: 16 hex digits, named again by the snapshot message that follows the parts. */
  transfer: string;
  index: number;
  count: number;
  fileBytes: number;
  body: Uint8Array;
}

/** The largest file a part can say it belongs to (the header's 6 bytes). */
export const MAX_PART_FILE_BYTES = 2 ** 48 - 1;

export function encodeSnapshotPart(part: SnapshotPart): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(part.transfer, 0, ID_BYTES, 'hex');
  header.writeUInt32BE(part.index, 8);
  header.writeUInt32BE(part.count, 12);
  header.writeUIntBE(part.fileBytes, 16, 6);
  return Buffer.concat([header, part.body]);
}

/** The part `bytes` holds, or null when it is too short to hold one. */
export function decodeSnapshotPart(bytes: Uint8Array): SnapshotPart | null {
  if (bytes.length <= HEADER_BYTES) return null;
  const header = Buffer.from(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  return {
    transfer: header.toString('hex', 0, ID_BYTES),
    index: header.readUInt32BE(8),
    count: header.readUInt32BE(12),
    fileBytes: header.readUIntBE(16, 6),
    body: bytes.subarray(HEADER_BYTES),
  };
}

/** The body a part of at most `maxPartBytes` (header included) holds. */
export function partBodyBytes(maxPartBytes: number): number {
  return maxPartBytes - HEADER_BYTES;
}
