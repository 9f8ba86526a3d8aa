import { describe, expect, it } from 'vitest';
import {
  featuresOfAll,
  PROTOCOL_VERSION,
  protocolFeatures,
} from '../../../src/core/peer/protocol-version.js';

describe('the features of a peer protocol version', () => {
  it('given a member that advertises none (an older build), takes it as version 1: no feature', () => {
    expect(protocolFeatures(undefined)).toEqual(protocolFeatures(1));
    expect(protocolFeatures(undefined)).toEqual({ leadershipTransfer: false, endedRunsInFires: false });
  });

  it('given version 2 or later, and this build, has leadership transfer', () => {
    expect(protocolFeatures(2).leadershipTransfer).toBe(true);
    expect(protocolFeatures(7).leadershipTransfer).toBe(true);
    expect(protocolFeatures(PROTOCOL_VERSION).leadershipTransfer).toBe(true);
  });

  it('given version 3 or later, and this build, applies the ended runs a fire names; version 2 does not', () => {
    expect(protocolFeatures(2).endedRunsInFires).toBe(false);
    expect(protocolFeatures(3).endedRunsInFires).toBe(true);
    expect(protocolFeatures(PROTOCOL_VERSION).endedRunsInFires).toBe(true);
  });

  it('given several members, what all of them understand is what the oldest does; none is this build', () => {
    expect(featuresOfAll([])).toEqual(protocolFeatures(PROTOCOL_VERSION));
    expect(featuresOfAll([3, 3, 7])).toEqual(protocolFeatures(3));
    expect(featuresOfAll([3, 2, 3])).toEqual(protocolFeatures(2));
    expect(featuresOfAll([3, undefined])).toEqual(protocolFeatures(1));
  });
});
