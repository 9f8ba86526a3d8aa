import type { MemberUpdate } from './swim-messages.js';

/**
 * Whether `incoming` overrides what is known (`current`) of the same member, by SWIM's rules (Das et
 * al., 2002, 4.2) with a dead state that a higher incarnation may leave (the member came back):
 * a higher incarnation wins; at the same incarnation suspect beats alive and dead beats both.
 */
export function overrides(incoming: MemberUpdate, current: MemberUpdate | undefined): boolean {
  if (current === undefined) return true;
  if (incoming.incarnation !== current.incarnation) return incoming.incarnation > current.incarnation;
  return rank(incoming.state) > rank(current.state);
}

/**
 * `incoming` with the version known of the member at the same incarnation, when it carries none: a member's
 * version is its own word for as long as its incarnation stands, and a member of an older build passes its
 * news on without it (a suspicion, say), which must not make it forgotten.
 */
export function withKnownVersion(incoming: MemberUpdate, current: MemberUpdate | undefined): MemberUpdate {
  if (incoming.version !== undefined || current?.version === undefined) return incoming;
  if (current.incarnation !== incoming.incarnation) return incoming;
  return { ...incoming, version: current.version };
}

/**
 * Whether `incoming`, which does not override `current`, still tells its version, unknown so far: the
 * member's own word reaching this node after the same news passed on without it.
 */
export function addsVersion(incoming: MemberUpdate, current: MemberUpdate | undefined): boolean {
  return (
    current !== undefined &&
    current.version === undefined &&
    incoming.version !== undefined &&
    incoming.incarnation === current.incarnation
  );
}

function rank(state: MemberUpdate['state']): number {
  return state === 'alive' ? 0 : state === 'suspect' ? 1 : 2;
}

/** How many times news is piggybacked before it is dropped: λ·log2(n+1), enough to reach all whp. */
export function retransmitLimit(members: number, multiplier = 3): number {
  return multiplier * Math.ceil(Math.log2(members + 1));
}
