import type { ForcedVoters, HardState } from './raft-messages.js';
import type { RaftDurableState } from './raft-node.js';

/**
 * What a forced recovery writes into a survivor's durable state: `voters` forced, and the survivor moved
 * to a term past every term it has seen (in its hard state and its log), with no vote given in it. The log
 * is left as it is: the survivors elect the one whose log is the most complete, and it writes the forced
 * voters into the log as its first entry (see RaftNode). The term only marks which configurations come
 * after the recovery; no entry is made up, so no two logs can hold different entries at one index and term.
 */
export function forceVoters(
  durable: Pick<RaftDurableState<unknown, unknown>, 'hardState' | 'snapshot' | 'entries'>,
  voters: readonly string[],
): { hardState: HardState; forced: ForcedVoters } {
  const forcedVoters = [...new Set(voters)].sort();
  if (forcedVoters.length === 0) throw new RangeError('a forced configuration needs at least one voter');
  const lastLogTerm = durable.entries.at(-1)?.term ?? durable.snapshot?.term ?? 0;
  const term = Math.max(durable.hardState.term, lastLogTerm) + 1;
  return { hardState: { term, votedFor: null }, forced: { voters: forcedVoters, term } };
}
