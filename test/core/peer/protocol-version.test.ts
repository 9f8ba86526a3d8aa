import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, protocolFeatures } from '../../../src/core/peer/protocol-version.js';

describe('the features of a peer protocol version', () => {
  it('given a member that advertises none (an older build), takes it as version 1: no leadership transfer', () => {
    expect(protocolFeatures(undefined)).toEqual(protocolFeatures(1));
    expect(protocolFeatures(undefined).leadershipTransfer).toBe(false);
  });

  it('given version 2 or later, and this build, has leadership transfer', () => {
    expect(protocolFeatures(2).leadershipTransfer).toBe(true);
    expect(protocolFeatures(7).leadershipTransfer).toBe(true);
    expect(protocolFeatures(PROTOCOL_VERSION).leadershipTransfer).toBe(true);
  });
});
