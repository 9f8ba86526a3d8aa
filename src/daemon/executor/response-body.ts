import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';

const RESPONSE_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Reads at most `limitBytes` of a response body and destroys the stream past that, so a huge body is
 * never buffered (the connection is then closed rather than drained). A body that ends within the limit
 * is read to its end, which leaves the connection reusable.
 */
export async function readBodyHead(body: Readable, limitBytes = RESPONSE_BODY_LIMIT_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = limitBytes - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = limitBytes;
      break; // leaving the loop destroys the stream
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  // write() without end() holds back a character the cut split in two instead of emitting U+FFFD.
  return new StringDecoder('utf8').write(Buffer.concat(chunks, size));
}

/** Lower-cased names (as undici gives them), repeated headers joined with `, `. */
export function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
