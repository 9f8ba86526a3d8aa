import { describe, expect, it } from 'vitest';
import { RequestAddresses } from '../../src/daemon/executor/request-address.js';

describe('the address of a target URL', () => {
  it('is its origin and its path with the query, as the request line carries them', () => {
    const addresses = new RequestAddresses();
    expect(addresses.of('https://hooks.example:8443/a/b?x=1&y=%20')).toEqual({
      origin: 'https://hooks.example:8443',
      path: '/a/b?x=1&y=%20',
    });
    expect(addresses.of('http://127.0.0.1/')).toEqual({ origin: 'http://127.0.0.1', path: '/' });
    expect(addresses.of('http://127.0.0.1:80')).toEqual({ origin: 'http://127.0.0.1', path: '/' });
  });

  it('is parsed once per URL, and a URL that does not parse is refused as new URL refuses it', () => {
    const addresses = new RequestAddresses();
    expect(addresses.of('http://127.0.0.1:9/hook')).toBe(addresses.of('http://127.0.0.1:9/hook'));
    expect(() => addresses.of('not a url')).toThrow(TypeError);
  });
});
