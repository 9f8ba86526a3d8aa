/**
 * The version of the peer protocol this build speaks, which each member advertises through membership
 * (SWIM) so that a leader uses a message only with members that understand it: during a rolling upgrade a
 * member of an older build would drop one it cannot decode. 1 is every build from before versions were
 * advertised, and what a member that advertises none is taken to speak.
 *
 * 2: leadership transfer (Raft's `timeout-now`, and a vote's `transfer` flag).
 * 3: a fire's entry names the job's runs that ended on its node (`endedRuns`), which the overlap rule counts
 *    as over on every member. How many it names and how long an id may be are part of it (see
 *    store-commands.ts): a build that changes them speaks a new version.
 */
export const PROTOCOL_VERSION = 3;

/** What a member understands of the peer protocol beyond version 1's. */
export interface ProtocolFeatures {
  /** It can be handed the leadership (`timeout-now`). */
  leadershipTransfer: boolean;
  /**
   * It applies a fire's `endedRuns`. One that does not would decide the fire's overlap rule without them, and
   * its copy would differ from the others': a fire carries them only when every member applies them.
   */
  endedRunsInFires: boolean;
}

/** The one place that says what each version has: `version` as a member advertises it (none: 1). */
export function protocolFeatures(version: number | undefined): ProtocolFeatures {
  const spoken = version ?? 1;
  return { leadershipTransfer: spoken >= 2, endedRunsInFires: spoken >= 3 };
}

/**
 * Whether a member of `version` may be sent the log (as a learner, or to become a voter). One older than 3
 * would apply an entry that names ended runs without them, and its copy would differ from the others': the
 * log it is sent may hold such entries from before anyone knew of it. A member that advertises none yet
 * (gossip has not heard it) is asked again later.
 */
export function mayFollowTheLog(version: number | undefined): boolean {
  return protocolFeatures(version).endedRunsInFires;
}

/** What every one of the members understands (each has what its version and every later one has). */
export function featuresOfAll(versions: Iterable<number | undefined>): ProtocolFeatures {
  let lowest = PROTOCOL_VERSION;
  for (const version of versions) lowest = Math.min(lowest, version ?? 1);
  return protocolFeatures(lowest);
}
