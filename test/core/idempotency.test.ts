import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_WINDOW_MS, canonicalJson, matchIdempotentRequest } from '../../src/core/idempotency.js';

describe('canonicalJson', () => {
  it('given the same object built in two key orders, writes the same text', () => {
    const a = { input: { name: 'x', every: '1m', labels: { b: '2', a: '1' } }, key: 'k' };
    const b = { key: 'k', input: { labels: { a: '1', b: '2' }, every: '1m', name: 'x' } };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"input":{"every":"1m","labels":{"a":"1","b":"2"},"name":"x"},"key":"k"}');
  });

  it('keeps array order, which carries meaning (an argv)', () => {
    expect(canonicalJson({ argv: ['b', 'a'] })).toBe('{"argv":["b","a"]}');
    expect(canonicalJson(['b', 'a'])).not.toBe(canonicalJson(['a', 'b']));
  });

  it('sorts keys by code unit, numeric-looking keys included', () => {
    expect(canonicalJson({ b: 1, 10: 2, 2: 3, A: 4, é: 5 })).toBe('{"10":2,"2":3,"A":4,"b":1,"é":5}');
  });

  it('drops undefined members as JSON does, so an absent and an undefined field match', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it('writes undefined in an array, non-finite numbers and undefined itself as null', () => {
    expect(canonicalJson([undefined, Number.NaN, Number.POSITIVE_INFINITY])).toBe('[null,null,null]');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('writes scalars and escapes strings as JSON does', () => {
    expect(canonicalJson({ s: 'a"b\n', n: -1.5e-7, t: true, z: null })).toBe(
      JSON.stringify({ n: -1.5e-7, s: 'a"b\n', t: true, z: null }),
    );
  });

  it('uses toJSON, so a Date is written as its ISO string', () => {
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('given the same object twice (not a cycle), writes it twice', () => {
    const shared = { a: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"a":1},{"a":1}]');
  });

  it('given a cycle, throws instead of recursing forever', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });
});

describe('matchIdempotentRequest', () => {
  const createdAt = Date.parse('2026-06-01T12:00:00Z');
  const stored = { requestFingerprint: 'f1', createdAt, method: 'job.add' };

  it('given no stored request, says new', () => {
    expect(matchIdempotentRequest(null, { fingerprint: 'f1', method: 'job.add' }, createdAt)).toBe('new');
  });

  it('given the same method and fingerprint within the window, says replay', () => {
    expect(matchIdempotentRequest(stored, { fingerprint: 'f1', method: 'job.add' }, createdAt + 1_000)).toBe(
      'replay',
    );
  });

  it('given a different fingerprint under the key, says mismatch', () => {
    expect(matchIdempotentRequest(stored, { fingerprint: 'f2', method: 'job.add' }, createdAt)).toBe(
      'mismatch',
    );
  });

  it('given the same fingerprint for another method, says mismatch', () => {
    expect(matchIdempotentRequest(stored, { fingerprint: 'f1', method: 'job.trigger' }, createdAt)).toBe(
      'mismatch',
    );
  });

  it('given the last millisecond of the window, still matches', () => {
    const now = createdAt + IDEMPOTENCY_WINDOW_MS - 1;
    expect(matchIdempotentRequest(stored, { fingerprint: 'f2', method: 'job.add' }, now)).toBe('mismatch');
  });

  it('given 24 hours have passed, says new: the key may be reused', () => {
    const now = createdAt + IDEMPOTENCY_WINDOW_MS;
    expect(IDEMPOTENCY_WINDOW_MS).toBe(86_400_000);
    expect(matchIdempotentRequest(stored, { fingerprint: 'f2', method: 'job.add' }, now)).toBe('new');
  });

  it('given a record from the future (the clock went back), still matches rather than run twice', () => {
    expect(
      matchIdempotentRequest(stored, { fingerprint: 'f1', method: 'job.add' }, createdAt - 3_600_000),
    ).toBe('replay');
  });
});
