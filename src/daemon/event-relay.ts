import type { StoredEvent, Store } from '../store/store.js';
import type { CancelTimer, Clock } from './clock.js';
import type { Service } from './service.js';

/** Events read per query; a backlog is read page after page. */
const PAGE = 1_000;
/**
 * An id skipped in the sequence may belong to a transaction that has not committed yet (ids are taken at
 * insert, rows appear at commit): it is asked for again until it appears, or for this long (a rolled-back
 * transaction leaves a hole for ever).
 */
const GAP_WAIT_MS = 10_000;
const GAP_POLL_MS = 250;
const MAX_GAPS = 10_000;
/** A read this often whatever is announced: a lost announcement (its node died just after the commit) delays by this much at most. */
const POLL_MS = 1_000;
const RETRY_MS = 1_000;
/**
 * Announcements that come while a read runs are answered by one more read this long after it: under a
 * steady stream of them a node reads a page at a time, not back to back.
 */
const READ_SPACING_MS = 20;

export interface EventRelayOptions {
  store: Store;
  clock: Clock;
  /** This node: its own events reach the stream as it stores them, not from here. */
  node: string;
  publish: (event: StoredEvent) => void;
  /**
   * Whether anyone here takes events now (a subscriber). While no one does, the relay follows the outbox's
   * ids alone, so it can pass events on from the right place once someone does.
   */
  wanted: () => boolean;
  onError: (error: Error) => void;
}

/**
 * Carries the other nodes' job and run events to this node's stream. Each node announces the highest id
 * it stored just after its commits; on each announcement (and every second) the relay reads the rows after
 * the last id it saw, in id order, and publishes those of other nodes. After its connection to the announcements was lost, it reads on from
 * the last id it saw, so nothing still retained is missed. A store without announcements (SQLite, one
 * daemon) has nothing to relay. While no one here takes events, it reads ids only.
 */
export class EventRelay implements Service {
  readonly name = 'event relay';
  private lastSeen = 0;
  /** Ids skipped so far, with when they were first found missing. */
  private readonly gaps = new Map<number, number>();
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private stopped = false;
  private stopWatching: (() => Promise<void>) | null = null;
  private timer: CancelTimer | null = null;
  private spacing: CancelTimer | null = null;

  constructor(private readonly options: EventRelayOptions) {}

  async start(): Promise<void> {
    const { store, onError } = this.options;
    this.lastSeen = await store.latestEventId();
    this.stopWatching = await store.watchEvents((announcement) => {
      // An id already read needs no query (the own node's, or one read in a page with others).
      if (
        announcement.kind === 'event' &&
        announcement.id <= this.lastSeen &&
        !this.gaps.has(announcement.id)
      )
        return;
      this.pull();
    }, onError);
    // Events stored between reading the latest id and listening were announced to no one here.
    if (this.stopWatching) this.pull();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
    this.spacing?.();
    await this.stopWatching?.();
    await this.reading;
  }

  /** Reads what is new; a call while a read runs makes it read once more when done. */
  pull(): void {
    if (this.stopped) return;
    if (this.reading || this.spacing) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readNew()
      .catch((error: Error) => {
        this.options.onError(error);
        this.later(RETRY_MS);
      })
      .finally(() => {
        this.reading = null;
        if (!this.readAgain || this.stopped) return;
        this.readAgain = false;
        this.spacing = this.options.clock.setTimer(READ_SPACING_MS, () => {
          this.spacing = null;
          this.pull();
        });
      });
  }

  private async readNew(): Promise<void> {
    const { clock, node, publish } = this.options;
    for (;;) {
      const wanted = this.options.wanted();
      const page = await this.readPage(wanted);
      // A subscriber that came while ids alone were read may be owed events among them: read them whole.
      if (!wanted && this.options.wanted()) continue;
      const now = clock.now();
      let newer = 0;
      for (const { id, event } of page) {
        if (id > this.lastSeen) {
          newer += 1;
          for (let missing = this.lastSeen + 1; missing < id && this.gaps.size < MAX_GAPS; missing += 1)
            this.gaps.set(missing, now);
          this.lastSeen = id;
        } else if (!this.gaps.delete(id)) continue;
        if (event && event.node !== node) publish(event);
      }
      for (const [id, since] of this.gaps) if (now - since >= GAP_WAIT_MS) this.gaps.delete(id);
      if (newer < PAGE) break;
    }
    this.later(this.gaps.size > 0 ? GAP_POLL_MS : POLL_MS);
  }

  /** The next page: whole events when someone takes them (this node's without their data), else ids. */
  private async readPage(wanted: boolean): Promise<{ id: number; event?: StoredEvent }[]> {
    const { store, node } = this.options;
    const query = { after: this.lastSeen, ids: [...this.gaps.keys()], limit: PAGE };
    if (wanted) {
      const events = await store.readEvents({ ...query, withoutDataOf: node });
      return events.map((event) => ({ id: event.id, event }));
    }
    return (await store.readEventIds(query)).map((id) => ({ id }));
  }

  private later(delayMs: number): void {
    if (this.stopped || this.timer) return;
    this.timer = this.options.clock.setTimer(delayMs, () => {
      this.timer = null;
      this.pull();
    });
  }
}
