/** Whether to report one occurrence, and how many of its kind were held back since the last one reported. */
export interface ThrottleVerdict {
  report: boolean;
  heldBack: number;
}

/**
 * Lets the first occurrence of each kind of repeated report through, then at most one per window, and
 * counts what it held back so the next one reported can say so. A peer spraying bad datagrams must not
 * bury the log (the drop counters in /metrics stay exact); the kinds are few (a channel and a reason).
 */
export class RepeatThrottle {
  private readonly kinds = new Map<string, { reportedAt: number; heldBack: number }>();

  constructor(private readonly windowMs: number) {}

  admit(kind: string, now: number): ThrottleVerdict {
    const seen = this.kinds.get(kind);
    if (seen !== undefined && now >= seen.reportedAt && now - seen.reportedAt < this.windowMs) {
      seen.heldBack += 1;
      return { report: false, heldBack: seen.heldBack };
    }
    const heldBack = seen?.heldBack ?? 0;
    this.kinds.set(kind, { reportedAt: now, heldBack: 0 });
    return { report: true, heldBack };
  }
}
