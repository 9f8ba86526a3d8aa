import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAME_LENGTH_BYTES, FrameReader, frameInPlace } from '../../../src/cluster/peer/frame-reader.js';
import { MessageSeal } from '../../../src/cluster/peer/message-seal.js';
import { newKey, ring } from './peer-test-kit.js';

describe('MessageSeal', () => {
  const key = newKey();

  it('Given parts sealed as one message after room for a frame length, when framed in place and read, then it opens to the parts joined', () => {
    const seal = new MessageSeal(ring(key));
    const other = new MessageSeal(ring(key));
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 4 }), (parts) => {
        const framed = frameInPlace(seal.sealParts(parts, 'stream', FRAME_LENGTH_BYTES));
        const reader = new FrameReader(10_000);
        reader.push(framed);
        const event = reader.next();
        expect(event !== null && 'frame' in event).toBe(true);
        const body = (event as { frame: Buffer }).frame;
        expect([...(other.open(body, 'stream') ?? [])]).toEqual([...Buffer.concat(parts)]);
        // The channel is bound in: the same bytes do not open as a datagram.
        expect(other.open(body, 'swim')).toBeNull();
      }),
    );
  });

  it('Given a message sealed whole and one sealed in parts, then each opens to the same bytes under a second key ring holding the key', () => {
    const seal = new MessageSeal(ring(key));
    const opener = new MessageSeal(ring(newKey(), key));
    const whole = seal.seal(Buffer.from('{"type":"append"}'), 'stream');
    const parts = seal.sealParts([Uint8Array.of(1), Buffer.from('{"type":"append"}')], 'stream');
    expect(opener.open(whole, 'stream')?.toString()).toBe('{"type":"append"}');
    expect(opener.open(parts, 'stream')?.toString()).toBe('\u0001{"type":"append"}');
  });
});
