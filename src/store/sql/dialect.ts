import type { Placeholder, SQL } from 'drizzle-orm';
import type { RunState } from '../../core/run.js';
import type { EventAnnouncement, StoreCapabilities, StoreChange } from '../store.js';
import type { RowLimit } from './query-builder.js';
import type { RowEncoding } from './records.js';
import type { Awaitable, Script } from './script.js';
import type { Session } from './session.js';
import type { StoreTables } from './tables.js';

/** The unique keys whose violation means something to the caller. */
export type UniqueKey = 'liveName' | 'runKey';

/** What is left to each back end once the store's rules, rows and queries are written once. */
export interface StoreDialect {
  readonly capabilities: StoreCapabilities;
  readonly tables: StoreTables;
  readonly encoding: RowEncoding;
  /** Reads, outside any transaction. */
  readonly session: Session;
  /** A write of one statement, settled once it is durable. */
  write<T>(work: (session: Session) => Awaitable<T>): Promise<T>;
  /** A script in one transaction on one connection: all of it is written, or nothing. */
  transaction<T>(script: (session: Session) => Script<T>): Promise<T>;
  isUniqueViolation(error: unknown, key: UniqueKey): boolean;
  /** A condition on `jobs` that holds when the job carries every one of these labels. */
  hasLabels(labels: Record<string, string>): SQL | undefined;
  /** A LIMIT as this dialect is fastest to run it. */
  rowLimit(limit: number | Placeholder): RowLimit;
  readonly retention: Retention;
  /** A cheap round trip that proves the store can still be read and written; throws when it cannot. */
  ping(): Promise<void>;
  watchChanges(
    onChange: (change: StoreChange) => void,
    onError: (error: Error) => void,
  ): Promise<(() => Promise<void>) | null>;
  relayKill(runId: string, reason: string): Promise<void>;
  /** This process stored events up to `highestId` (committed): other processes watching events hear of it. */
  eventsStored(highestId: number): void;
  watchEvents(
    onAnnounce: (announcement: EventAnnouncement) => void,
    onError: (error: Error) => void,
  ): Promise<(() => Promise<void>) | null>;
  close(): Promise<void>;
}

/** What the transaction scripts need of a dialect besides a session. */
export type ScriptDialect = Pick<StoreDialect, 'encoding' | 'isUniqueViolation' | 'tables'>;

/** Batched deletes, written per dialect (PostgreSQL skips rows another daemon is deleting). */
export interface Retention {
  pruneRunsFinishedBefore(states: RunState[], before: number, limit: number): Promise<number>;
  pruneRunsBeyond(keep: number, limit: number): Promise<number>;
  pruneAudit(before: number, limit: number): Promise<number>;
  purgeCancelledJobs(before: number, limit: number): Promise<number>;
  /** The oldest events first, up to `limit` of those written before `before`. */
  pruneEvents(before: number, limit: number): Promise<number>;
  /** Settled notifications (not pending) that ended, or were settled unsent, before `before`. */
  pruneDeliveries(before: number, limit: number): Promise<number>;
}
