import type { Clock } from '../../core/clock.js';
import type { Store } from '../../store/store.js';
import type { DaemonEvents } from '../events.js';
import type { PeerMembership } from './peer-membership.js';

/**
 * A node started with voters that `sched cluster recover --force` forced, and that its log has not
 * superseded yet, says so loudly in its log at every start, and records in the audit (through the log, once
 * the survivors have a leader) that the cluster was recovered by force, when and by whom.
 */
export function announceForcedRecovery(
  peers: PeerMembership,
  deps: { store: Pick<Store, 'appendAudit'>; clock: Clock; newId: () => string; events: DaemonEvents },
): void {
  const forced = peers.forcedRecovery;
  if (forced === null) return;
  const { store, clock, newId, events } = deps;
  const voters = [...forced.voters];
  events.emit('cluster:forced', { voters, at: forced.at, by: forced.by });
  void store
    .appendAudit({
      id: newId(),
      at: clock.now(),
      actor: forced.by,
      action: 'cluster.recover',
      jobId: null,
      before: null,
      after: { voters, node: peers.cluster.nodeId, forcedAt: forced.at },
    })
    .catch((error: Error) =>
      events.emit('cluster:error', {
        error: new Error(`the audit entry of the forced recovery: ${error.message}`),
      }),
    );
}
