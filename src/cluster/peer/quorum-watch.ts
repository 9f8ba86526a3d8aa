import type { CancelTimer, Clock } from '../../core/clock.js';
import { memberLeaseExpired, type MemberLeaseBounds } from '../../core/cluster/member-lease.js';
import { SchedError } from '../../core/errors.js';

/**
 * How long a member hears no leader before it counts itself cut off from the majority: longer than an
 * election (a timeout of 1 to 2 s, then the votes) and one retry of it, so a leader's death alone does not
 * put the survivors in degraded mode.
 */
export const QUORUM_LOST_AFTER_MS = 3_000;
/** How often it looks: part of how late a member may notice its lease ran out (see PEER_MEMBER_LEASE). */
export const QUORUM_CHECK_EVERY_MS = 250;

export interface QuorumWatchOptions {
  /** How long this member has heard no leader (0 while it leads or hears one). */
  leaderSilentForMs(): number;
  clock: Clock;
  lostAfterMs?: number;
  /** This member lost touch with a majority: what it cannot commit, it must do without the log. */
  onLost(error: SchedError): void;
  onRegained(): void;
  /** When (monotonic) this member was last surely in touch with a leader; null while it leads (see LeaderContact). */
  leaseContactAt(): number | null;
  lease: MemberLeaseBounds;
  /**
   * The member's lease ran out: the runs it has going must stop before the majority records them lost.
   * Said again when contact was confirmed since the last look without making the lease hold at it.
   */
  onLeaseExpired(): void;
}

/**
 * Tells when this member is on a side of the cluster without a majority, and when it is back: the peer
 * mode's counterpart of a store that cannot be reached, which puts a node in degraded mode (every-host
 * jobs go on firing from its copy, their runs journaled until the log takes them). And when its lease
 * on the runs it has going ran out (see member-lease.ts).
 */
export class QuorumWatch {
  private lost = false;
  private leaseExpired = false;
  /** When (monotonic) the lease last ran from, as of the last look (null: leading). */
  private contactAt: number | null = null;
  private cancel: CancelTimer | null = null;

  constructor(private readonly options: QuorumWatchOptions) {}

  start(): void {
    this.arm();
  }

  stop(): void {
    this.cancel?.();
    this.cancel = null;
  }

  private arm(): void {
    this.cancel = this.options.clock.setTimer(QUORUM_CHECK_EVERY_MS, () => {
      this.check();
      if (this.cancel !== null) this.arm();
    });
  }

  private check(): void {
    const contactAt = this.options.leaseContactAt();
    const ageMs = contactAt === null ? 0 : this.options.clock.monotonic() - contactAt;
    const expired = memberLeaseExpired(ageMs, this.options.lease);
    // Expired at both looks, with contact confirmed in between: a late echo may have renewed the lease for
    // less than the time between two looks, and a run started then must not outlive it.
    const renewedUnseen = contactAt !== null && this.contactAt !== null && contactAt > this.contactAt;
    if (expired && (!this.leaseExpired || renewedUnseen)) this.options.onLeaseExpired();
    this.leaseExpired = expired;
    this.contactAt = contactAt;
    const silentMs = this.options.leaderSilentForMs();
    if (!this.lost && silentMs >= (this.options.lostAfterMs ?? QUORUM_LOST_AFTER_MS)) {
      this.lost = true;
      this.options.onLost(
        new SchedError(
          'NO_QUORUM',
          `no leader heard for ${Math.round(silentMs / 1_000)} s: no majority of the voters reachable`,
        ),
      );
    } else if (this.lost && silentMs === 0) {
      this.lost = false;
      this.options.onRegained();
    }
  }
}
