import { performance } from 'node:perf_hooks';
import type { StreamEvent } from '../../ipc/protocol.js';

/**
 * Coalesces events into batches, at most one every `intervalMs`, so a flood of events costs one state
 * change and one frame per interval instead of one per event. The first event after a quiet spell is
 * delivered at once (after the other messages already read from the socket), so a lone event is on
 * screen without waiting out the interval.
 */
export class EventBatcher {
  private queue: StreamEvent[] = [];
  private immediate: NodeJS.Immediate | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastFlush = -Infinity;

  constructor(
    private readonly deliver: (events: StreamEvent[]) => void,
    private readonly intervalMs = 16,
    private readonly now: () => number = () => performance.now(),
  ) {}

  push(event: StreamEvent): void {
    this.queue.push(event);
    if (this.immediate || this.timer) return;
    const wait = this.lastFlush + this.intervalMs - this.now();
    if (wait <= 0) this.immediate = setImmediate(() => this.flush());
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    this.cancel();
    if (this.queue.length === 0) return;
    const events = this.queue;
    this.queue = [];
    this.lastFlush = this.now();
    this.deliver(events);
  }

  /** Drops the pending timer; queued events stay until the next flush. */
  cancel(): void {
    if (this.immediate) clearImmediate(this.immediate);
    if (this.timer) clearTimeout(this.timer);
    this.immediate = null;
    this.timer = null;
  }
}
