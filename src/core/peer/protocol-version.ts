/**
 * The version of the peer protocol this build speaks, which each member advertises through membership
 * (SWIM) so that a leader uses a message only with members that understand it: during a rolling upgrade a
 * member of an older build would drop one it cannot decode. 1 is every build from before versions were
 * advertised, and what a member that advertises none is taken to speak.
 *
 * 2: leadership transfer (Raft's `timeout-now`, and a vote's `transfer` flag).
 */
export const PROTOCOL_VERSION = 2;

/** What a member understands of the peer protocol beyond version 1's. */
export interface ProtocolFeatures {
  /** It can be handed the leadership (`timeout-now`). */
  leadershipTransfer: boolean;
}

/** The one place that says what each version has: `version` as a member advertises it (none: 1). */
export function protocolFeatures(version: number | undefined): ProtocolFeatures {
  const spoken = version ?? 1;
  return { leadershipTransfer: spoken >= 2 };
}
