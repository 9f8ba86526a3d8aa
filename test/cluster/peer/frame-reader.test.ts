import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameReader, frame } from '../../../src/cluster/peer/frame-reader.js';

describe('FrameReader', () => {
  it('given frames cut into chunks anywhere, yields each body whole and in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 10 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1 }),
        (bodies, cuts) => {
          const stream = Buffer.concat(bodies.map((body) => frame(body)));
          const reader = new FrameReader(300);
          const got: Buffer[] = [];
          for (let at = 0, cut = 0; at < stream.length; cut++) {
            const size = cuts[cut % cuts.length]!;
            reader.push(stream.subarray(at, at + size));
            for (let event = reader.next(); event !== null; event = reader.next())
              if ('frame' in event) got.push(event.frame);
            at += size;
          }
          expect(got.map((body) => [...body])).toEqual(bodies.map((body) => [...body]));
        },
      ),
    );
  });

  it('given a length prefix above the bound, reports it at once and reads nothing more', () => {
    const reader = new FrameReader(1_000);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(10 * 1024 * 1024);
    reader.push(prefix.subarray(0, 3));
    expect(reader.next()).toBeNull();
    reader.push(prefix.subarray(3));
    expect(reader.next()).toEqual({ tooLarge: 10 * 1024 * 1024 });
    reader.push(frame(Buffer.from('later')));
    expect(reader.next()).toBeNull();
  });

  it('given a bound raised after a frame, applies it to the very next frame of the same chunk', () => {
    const reader = new FrameReader(10);
    reader.push(Buffer.concat([frame(Buffer.from('hello')), frame(Buffer.alloc(500))]));
    expect(reader.next()).toEqual({ frame: Buffer.from('hello') });
    reader.allow(1_000);
    expect(reader.next()).toEqual({ frame: Buffer.alloc(500) });
  });
});
