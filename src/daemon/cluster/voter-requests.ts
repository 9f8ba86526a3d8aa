import type { Clock } from '../../core/clock.js';
import { SchedError } from '../../core/errors.js';
import { formatPeerAddress, parsePeerAddress } from '../../core/peer/peer-address.js';
import type { VotersChanged } from '../../ipc/protocol.js';
import type { Store } from '../../store/store.js';
import type { PeerMembership } from './peer-membership.js';

export interface VoterRequestsOptions {
  /** This daemon in peer mode; null in the other modes, which have no voters. */
  peers: PeerMembership | null;
  /** This node's id (its peer address in peer mode). */
  node: string;
  store: Pick<Store, 'appendAudit'>;
  clock: Clock;
  newId: () => string;
  onError: (error: Error) => void;
}

/**
 * `sched cluster join|leave` on this daemon: one voter added or removed through the leader, answered once
 * the new voters are committed, and audited (admins only: the request guard checked the caller's role).
 */
export class VoterRequests {
  constructor(private readonly options: VoterRequestsOptions) {}

  /** `actor`: who asked, as the audit names them. */
  async change(action: 'join' | 'leave', named: string | undefined, actor: string): Promise<VotersChanged> {
    const { peers, node, store, clock, newId } = this.options;
    if (peers === null)
      throw new SchedError(
        'INVALID_STATE',
        `\`sched cluster ${action}\` changes the voters of a peer cluster; this daemon is not in peer mode.`,
        {
          hint: 'Daemons sharing PostgreSQL join by starting with the same --store and leave by stopping; peer mode starts with --peers or --join.',
        },
      );
    const member = formatPeerAddress(parsePeerAddress(named ?? node));
    const before = [...peers.cluster.votersInForce];
    const result = await peers.changeVoters({ action: action === 'join' ? 'add' : 'remove', member });
    // The change is made: an audit entry that cannot be written is reported, not turned into a failure.
    await store
      .appendAudit({
        id: newId(),
        at: clock.now(),
        actor,
        action: `cluster.${action}`,
        jobId: null,
        before: { voters: before },
        after: { voters: result.voters, member },
      })
      .catch((error: Error) =>
        this.options.onError(new Error(`the audit entry of cluster ${action} ${member}: ${error.message}`)),
      );
    return { action, member, voters: result.voters, leader: result.leader };
  }
}
