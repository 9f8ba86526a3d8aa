import {
  degradedNotice,
  fellDueInOutage,
  minorityReadNotice,
  type DegradedCause,
  type Outage,
} from '../../core/cluster/degraded-mode.js';
import { isStoreUnreachable } from '../../store/unreachable.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';

/** How long before its first failed call an outage may have begun: a fire fails a moment after its instant. */
const NOTICE_MS = 2_000;
const KEPT_OUTAGES = 16;

/**
 * Whether this node can reach its store, as its own calls find out: a call that fails for want of the
 * store (a refused or dropped connection, a server shutting down) puts the node in degraded mode; any call
 * that succeeds takes it out. Nothing is guessed from timing, and nothing but real calls decides. In peer
 * mode, where every read is local and succeeds, the node's Raft decides instead (see QuorumWatch).
 */
export class StoreReachability {
  private since: number | null = null;
  /** The latest outages, the current one last; enough to tell why instants were missed after one ends. */
  private readonly outages: Outage[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly events: DaemonEvents,
    private readonly cause: DegradedCause = 'store',
  ) {}

  /** When the store became unreachable; null while it is reachable. */
  get unreachableSince(): number | null {
    return this.since;
  }

  get reachable(): boolean {
    return this.since === null;
  }

  /** `degraded: store unreachable for 45s, …` while it is unreachable, else null. */
  notice(): string | null {
    return this.since === null ? null : degradedNotice(this.since, this.clock.now(), this.cause);
  }

  /**
   * Said with a read a peer answers from its own copy while it reaches no majority, else null. (A federation's
   * node reads its local copy then instead, and says so itself: see LocalReads.)
   */
  staleReadNotice(): string | null {
    return this.since === null || this.cause !== 'quorum'
      ? null
      : minorityReadNotice(this.since, this.clock.now());
  }

  /** Whether the instant fell due while the store could not be reached (see fellDueInOutage). */
  unreachableAt(instant: number): boolean {
    return fellDueInOutage(instant, this.outages, NOTICE_MS);
  }

  /** The store with every call's success or failure noted here. */
  observe(store: Store): Store {
    return new Proxy(store, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(result instanceof Promise)) return result;
          return result.then(
            (answer: unknown) => (this.succeeded(), answer),
            (error: unknown) => {
              this.failed(error);
              throw error;
            },
          );
        };
      },
    });
  }

  /** A call reached the store. */
  succeeded(): void {
    if (this.since === null) return;
    const at = this.clock.now();
    const unreachableForMs = at - this.since;
    this.since = null;
    this.outages[this.outages.length - 1]!.until = at;
    this.events.emit('store:reachable', { at, unreachableForMs });
  }

  /** A call failed; only a failure to reach the store counts. */
  failed(error: unknown): void {
    if (this.since !== null || !isStoreUnreachable(error)) return;
    this.since = this.clock.now();
    this.outages.push({ since: this.since, until: null });
    if (this.outages.length > KEPT_OUTAGES) this.outages.shift();
    this.events.emit('store:unreachable', { since: this.since, error: error as Error });
  }
}
