/**
 * Shard leases granted through the replicated log, timed on each node's own monotonic clock. No clock is
 * compared with another's: each side measures from an instant it saw itself, and the bound on how fast
 * or slow a clock may run (`maxDrift`, e.g. 0.05 for 5 %) turns local durations into real ones.
 *
 * With clock rates within [1 - ρ, 1 + ρ] of real time and a lease of D:
 * - the holder asked at real time t_ask and acts until its clock has run D(1 - ρ) from then: at most D of
 *   real time, so it stops by t_ask + D;
 * - any node applies the grant only after it was committed, so after t_ask; it may grant the shard to
 *   another only once its own clock has run D(1 + ρ) since it applied the latest grant of that shard: at
 *   least D of real time, so not before t_ask + D.
 * So no two nodes act on one shard at one instant, whichever node leads when the lease moves.
 */
export interface LeaseBounds {
  durationMs: number;
  /** How far a clock's rate may stray from real time, as a fraction (0.05: 5 % fast or slow). */
  maxDrift: number;
}

/**
 * A lease in the log: `holder` holds `shard`; the grant's log index fences what it does with it. `ask`
 * names the holder's request, which only the holder can time (see LeaseHolder).
 */
export interface LeaseGrant {
  shard: number;
  holder: string;
  index: number;
  ask: string;
}

/** The local monotonic instant until which a holder may act on a lease it asked for at `askedAt`. */
export function leaseValidUntil(askedAt: number, bounds: LeaseBounds): number {
  return askedAt + bounds.durationMs * (1 - bounds.maxDrift);
}

/** The local monotonic instant after which a lease applied here at `appliedAt` has surely ended. */
export function leaseSurelyEndedAt(appliedAt: number, bounds: LeaseBounds): number {
  return appliedAt + bounds.durationMs * (1 + bounds.maxDrift);
}

/**
 * One node's view of the shard leases: who holds each (the same on every node, from the log) and when
 * this node applied each shard's latest grant (its own, on its own clock). The leader consults it
 * before proposing a grant; every node applies grants as they commit.
 */
export class ShardLeases {
  private readonly grants = new Map<number, LeaseGrant>();
  private readonly appliedAt = new Map<number, number>();
  /** Shards this node (leading) has proposed a grant of that is not applied yet. */
  private readonly inFlight = new Set<number>();
  /** Before this instant every shard counts as just granted: what a node knew before it started is lost. */
  private startedAt: number;

  constructor(
    private readonly bounds: LeaseBounds,
    now: number,
  ) {
    if (!(bounds.maxDrift >= 0 && bounds.maxDrift < 1)) throw new RangeError('maxDrift must be in [0, 1)');
    if (!(bounds.durationMs > 0)) throw new RangeError('durationMs must be positive');
    this.startedAt = now;
  }

  /** A committed grant, applied at local instant `now` (renewals included: they restart the clock). */
  apply(grant: LeaseGrant, now: number): void {
    this.grants.set(grant.shard, grant);
    this.appliedAt.set(grant.shard, now);
    this.inFlight.delete(grant.shard);
  }

  /** This node proposed a grant of `shard`: no other is proposed until it is applied (or abandoned). */
  proposed(shard: number): void {
    this.inFlight.add(shard);
  }

  /** This node starts or stops leading: what it proposed before is committed or lost, not in flight here. */
  abandonProposals(): void {
    this.inFlight.clear();
  }

  holderOf(shard: number): LeaseGrant | null {
    return this.grants.get(shard) ?? null;
  }

  /**
   * Whether a grant of `shard` to `holder` may be proposed at local instant `now`: none while one this
   * node proposed is in flight; a renewal by the holder always; a move only once the latest grant has surely ended (and never sooner after this
   * node started than a whole lease, since it cannot know what it applied before). Only meaningful on
   * a node that has applied every committed entry: a leader once the first entry of its term is applied.
   */
  mayGrant(shard: number, holder: string, now: number): boolean {
    // A renewal judged against the applied holder while a move is in flight would commit after it.
    if (this.inFlight.has(shard)) return false;
    const current = this.grants.get(shard);
    if (current?.holder === holder) return true;
    const since = Math.max(this.appliedAt.get(shard) ?? -Infinity, this.startedAt);
    return now >= leaseSurelyEndedAt(since, this.bounds);
  }
}

/**
 * The holder's side: when it asked for each lease, on its own clock. Asks are forgotten with the
 * process, so after a restart no grant made before it counts here (its instants were on a clock that
 * is gone) until the node asks again.
 */
export class LeaseHolder {
  private nextAsk = 0;
  private readonly asks = new Map<string, number>();
  private readonly validUntil = new Map<number, { until: number; index: number }>();

  constructor(
    readonly id: string,
    private readonly incarnation: string,
    private readonly bounds: LeaseBounds,
  ) {}

  /** A request for `shard` sent at local instant `now`: what to put in the grant's `ask`. */
  ask(now: number): string {
    const ask = `${this.incarnation}:${this.nextAsk++}`;
    this.asks.set(ask, now);
    return ask;
  }

  /** A committed grant, applied here; only this node's own asks extend what it holds. */
  apply(grant: LeaseGrant): void {
    if (grant.holder !== this.id) {
      this.validUntil.delete(grant.shard);
      return;
    }
    const askedAt = this.asks.get(grant.ask);
    this.asks.delete(grant.ask);
    if (askedAt === undefined) return;
    const until = leaseValidUntil(askedAt, this.bounds);
    const held = this.validUntil.get(grant.shard);
    if (held === undefined || until > held.until)
      this.validUntil.set(grant.shard, { until, index: grant.index });
  }

  /** The fence (the grant's log index) under which this node may act on `shard` now; null when it may not. */
  fenceFor(shard: number, now: number): number | null {
    const held = this.validUntil.get(shard);
    return held !== undefined && now < held.until ? held.index : null;
  }
}
