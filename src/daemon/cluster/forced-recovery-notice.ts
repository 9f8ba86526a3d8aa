import type { CancelTimer, Clock } from '../../core/clock.js';
import type { Store } from '../../store/store.js';
import type { DaemonEvents } from '../events.js';
import type { Service } from '../service.js';
import type { PeerMembership } from './peer-membership.js';

/** How long to wait before writing the audit entry again, while the survivors have no leader yet. */
const RETRY_MS = 5_000;

/**
 * A node started with voters that `sched cluster recover --force` forced, and that its log has not
 * superseded yet, says so loudly in its log at every start, and records in the audit (through the log)
 * that the cluster was recovered by force, when and by whom: again and again until it is written, since the
 * survivors elect their first leader only once every one of them is up, which may take a while.
 */
export class ForcedRecoveryNotice implements Service {
  readonly name = 'forced recovery notice';
  private timer: CancelTimer | null = null;
  private stopped = false;

  constructor(
    private readonly peers: PeerMembership,
    private readonly deps: {
      store: Pick<Store, 'appendAudit'>;
      clock: Clock;
      newId: () => string;
      events: DaemonEvents;
    },
  ) {}

  async start(): Promise<void> {
    const forced = this.peers.forcedRecovery;
    if (forced === null) return;
    const voters = [...forced.voters];
    this.deps.events.emit('cluster:forced', { voters, at: forced.at, by: forced.by });
    const entry = {
      actor: forced.by,
      action: 'cluster.recover',
      jobId: null,
      before: null,
      after: { voters, node: this.peers.cluster.nodeId, forcedAt: forced.at },
    };
    const write = (): void => {
      if (this.stopped) return;
      // A try that timed out may still be committed: then the recovery is in the audit twice, never missing.
      const { newId, clock } = this.deps;
      this.deps.store.appendAudit({ ...entry, id: newId(), at: clock.now() }).catch((error: Error) => {
        if (this.stopped) return;
        this.deps.events.emit('cluster:error', {
          error: new Error(`the audit entry of the forced recovery, tried again soon: ${error.message}`),
        });
        this.timer = this.deps.clock.setTimer(RETRY_MS, write);
      });
    };
    write();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
  }
}
