import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, REQUEST_LIMITS } from '../../src/ipc/frame-codec.js';
import { FrameSplitter } from '../../src/ipc/frame-splitter.js';

const limits = { maxBytes: 64, maxDepth: 4 };

describe('FrameSplitter', () => {
  it('given frames split across chunks and several in one chunk, returns each whole frame once', () => {
    const splitter = new FrameSplitter(64);
    const first = splitter.push(Buffer.from('{"a"'));
    const second = splitter.push(Buffer.from(':1}\f{"b":2}\f{"c"'));
    expect(first).toEqual({ ok: true, frames: [] });
    expect(second.ok && second.frames.map((frame) => frame.toString())).toEqual(['{"a":1}', '{"b":2}']);
    expect(splitter.holdsPartialFrame).toBe(true);
  });

  it('given more bytes than the limit without a delimiter, refuses instead of holding them', () => {
    const splitter = new FrameSplitter(8);
    expect(splitter.push(Buffer.from('12345')).ok).toBe(true);
    expect(splitter.push(Buffer.from('6789'))).toEqual({ ok: false, heldBytes: 9 });
  });
});

describe('frames', () => {
  it('given a message, encodes it as node-ipc did and decodes it back', () => {
    const frame = encodeFrame({ kind: 'request', id: 1 }, limits);
    expect(frame.toString()).toBe('{"type":"sched","data":{"kind":"request","id":1}}\f');
    expect(decodeFrame(frame.subarray(0, -1), limits)).toEqual({
      ok: true,
      message: { kind: 'request', id: 1 },
    });
  });

  it.each([
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 'not valid UTF-8'],
    ['nested too deep', Buffer.from('{"type":"sched","data":[[[[1]]]]}'), 'more than 4 levels'],
    ['not JSON', Buffer.from('{"type":'), 'not JSON'],
    ['another type', Buffer.from('{"type":"constructor","data":{}}'), 'not a {"type":"sched"} message'],
    ['an array', Buffer.from('[{}]'), 'not a {"type":"sched"} message'],
  ])('given a frame that is %s, says why it cannot be read', (_name, bytes, reason) => {
    expect(decodeFrame(bytes, limits)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  it('given a message larger than the limits, refuses to encode it with PAYLOAD_TOO_LARGE', () => {
    expect(() => encodeFrame({ text: 'x'.repeat(100) }, limits)).toThrow(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }),
    );
  });

  it('given a message nested deeper than serialising can go, refuses it with VALIDATION_FAILED', () => {
    let deep: unknown = [];
    for (let level = 0; level < 200_000; level++) deep = [deep];
    expect(() => encodeFrame(deep, REQUEST_LIMITS)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});
