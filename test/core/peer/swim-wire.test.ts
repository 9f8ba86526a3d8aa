import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemberUpdate, SwimMessage } from '../../../src/core/membership/swim-messages.js';
import {
  decodeStateExchange,
  decodeSwimMessage,
  encodeStateExchange,
  encodeSwimMessage,
  MAX_SWIM_DATAGRAM,
} from '../../../src/core/membership/swim-wire.js';

const id = fc.stringMatching(/^[\x21-\x7e]{1,40}$/);
const count = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const update: fc.Arbitrary<MemberUpdate> = fc.record(
  {
    id,
    incarnation: count,
    state: fc.constantFrom('alive' as const, 'suspect' as const, 'dead' as const),
    suspectedBy: id,
    version: fc.integer({ min: 1, max: 65_535 }),
  },
  { requiredKeys: ['id', 'incarnation', 'state'] },
);
const envelope = { from: id, to: id, seq: count, updates: fc.array(update, { maxLength: 64 }) };
const required = ['type', 'from', 'to', 'seq', 'updates'] as ('type' | 'from' | 'to' | 'seq' | 'updates')[];
const loaded = { requiredKeys: required };
const swimMessage: fc.Arbitrary<SwimMessage> = fc.oneof(
  fc.record({ type: fc.constant('ping' as const), ...envelope, load: count }, loaded),
  fc.record({ type: fc.constant('ack' as const), ...envelope, load: count }, loaded),
  fc.record(
    { type: fc.constant('ping-req' as const), ...envelope, target: id, load: count },
    { requiredKeys: [...required, 'target'] },
  ),
  fc.record({ type: fc.constant('nack' as const), ...envelope, load: count }, loaded),
);

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const ping = (updates: unknown[] = []) => ({ type: 'ping', from: 'a:1', to: 'b:2', seq: 7, updates });

describe('the SWIM wire format', () => {
  it('given any valid message, decodes what it encodes, with a prefix of the updates that fits a datagram', () => {
    fc.assert(
      fc.property(swimMessage, (message) => {
        const bytes = encodeSwimMessage(message, MAX_SWIM_DATAGRAM)!;
        expect(bytes.length).toBeLessThanOrEqual(MAX_SWIM_DATAGRAM);
        const decoded = decodeSwimMessage(bytes);
        expect(decoded.ok).toBe(true);
        if (!decoded.ok) return;
        const { updates, ...rest } = decoded.message;
        const { updates: sent, ...sentRest } = message;
        expect(rest).toEqual(sentRest);
        expect(updates).toEqual(sent.slice(0, updates.length));
      }),
    );
  });

  it('given many updates, keeps the first ones and fills the datagram', () => {
    const updates = Array.from({ length: 60 }, (_, index) => ({
      id: `10.0.0.${index}:7946`,
      incarnation: index,
      state: 'alive' as const,
    }));
    const bytes = encodeSwimMessage(
      { type: 'ping', from: 'a:1', to: 'b:2', seq: 1, updates },
      MAX_SWIM_DATAGRAM,
    )!;
    const decoded = decodeSwimMessage(bytes);
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.message.updates.length).toBeGreaterThan(15);
    expect(decoded.message.updates).toEqual(updates.slice(0, decoded.message.updates.length));
    expect(bytes.length + 60).toBeGreaterThan(MAX_SWIM_DATAGRAM);
  });

  it('given any bytes, text or JSON value, decodes without throwing', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2_000 }), (bytes) => void decodeSwimMessage(bytes)));
    fc.assert(fc.property(fc.string({ maxLength: 2_000 }), (text) => void decodeSwimMessage(utf8(text))));
    fc.assert(
      fc.property(fc.jsonValue(), (value) => void decodeSwimMessage(utf8(JSON.stringify(value) ?? ''))),
    );
  });

  it.each([
    ['a sequence number that is a string', { ...ping(), seq: '7' }, /seq/],
    [
      'a negative incarnation',
      ping([{ id: 'c', incarnation: -1, state: 'alive' }]),
      /updates\.0\.incarnation/,
    ],
    ['a fractional sequence number', { ...ping(), seq: 1.5 }, /seq/],
    ['an unknown state', ping([{ id: 'c', incarnation: 1, state: 'zombie' }]), /updates\.0\.state/],
    ['an id with a space', { ...ping(), from: 'a b' }, /from: an id is/],
    ['an unknown type', { ...ping(), type: 'shutdown' }, /type/],
    ['no recipient', { ...ping(), to: undefined }, /to/],
    ['a protocol version 0', ping([{ id: 'c', incarnation: 1, state: 'alive', version: 0 }]), /version/],
    [
      'a protocol version that is a string',
      ping([{ id: 'c', incarnation: 1, state: 'alive', version: '2' }]),
      /updates\.0\.version/,
    ],
  ])('given a message with %s, refuses it with a reason', (_, message, reason) => {
    const decoded = decodeSwimMessage(utf8(JSON.stringify(message)));
    expect(decoded).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('given an infinite number, a nesting bomb, an oversized message or garbage, refuses it', () => {
    expect(decodeSwimMessage(utf8(JSON.stringify(ping()).replace('"seq":7', '"seq":1e999')))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/seq/),
    });
    expect(decodeSwimMessage(utf8(`${'['.repeat(1_000)}${']'.repeat(1_000)}`))).toMatchObject({ ok: false });
    expect(decodeSwimMessage(utf8('['.repeat(1_000)))).toEqual({
      ok: false,
      reason: 'nested deeper than 32',
    });
    expect(decodeSwimMessage(utf8('NaN'))).toEqual({ ok: false, reason: 'not JSON' });
    expect(decodeSwimMessage(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({ ok: false, reason: 'not UTF-8' });
    expect(decodeSwimMessage(utf8(' '.repeat(MAX_SWIM_DATAGRAM + 1)))).toEqual({
      ok: false,
      reason: `longer than ${MAX_SWIM_DATAGRAM} bytes`,
    });
  });

  it('given updates of an older build (no protocol version), in a datagram or a state exchange, decodes them as they are', () => {
    const old = [
      { id: 'c:1', incarnation: 3, state: 'alive' },
      { id: 'd:1', incarnation: 0, state: 'suspect', suspectedBy: 'c:1' },
    ];

    expect(decodeSwimMessage(utf8(JSON.stringify(ping(old))))).toEqual({ ok: true, message: ping(old) });
    const exchange = { type: 'state', from: 'a:1', to: 'b:2', reply: false, members: old };
    expect(decodeStateExchange(utf8(JSON.stringify(exchange)))).toEqual({ ok: true, message: exchange });
  });

  it('given any state exchange, decodes what it encodes; given a bad one, refuses it with a reason', () => {
    fc.assert(
      fc.property(
        fc.record({
          type: fc.constant('state' as const),
          from: id,
          to: id,
          reply: fc.boolean(),
          members: fc.array(update),
        }),
        (exchange) => {
          expect(decodeStateExchange(encodeStateExchange(exchange))).toEqual({ ok: true, message: exchange });
        },
      ),
    );
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2_000 }), (bytes) => void decodeStateExchange(bytes)));
    const members = Array(4_097).fill({ id: 'c', incarnation: 0, state: 'alive' });
    expect(
      decodeStateExchange(utf8(JSON.stringify({ type: 'state', from: 'a', to: 'b', reply: false, members }))),
    ).toEqual({
      ok: false,
      reason: expect.stringMatching(/^members: /),
    });
  });
});
