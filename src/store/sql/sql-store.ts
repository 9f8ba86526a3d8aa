import type { ApiToken } from '../../core/access/api-token.js';
import type { Job, JobState } from '../../core/job.js';
import type { LedgerEntry } from '../../core/ledger/entry.js';
import type { Delivery, DeliveryAttempt, DeliveryState, NewDelivery } from '../../core/notify/delivery.js';
import type { Run, RunOutcome, RunState, RunSummary } from '../../core/run.js';
import { idPrefixRange } from '../ids.js';
import { occurrenceToRow } from '../ledger-rows.js';
import type {
  NewApiToken,
  AloneClaim,
  AuditEntry,
  AuditStamp,
  DeliveryQuery,
  DependencyEdge,
  EventsQuery,
  Fire,
  FinishedRun,
  FiredInstant,
  IdempotencyClaim,
  IdempotencyRecord,
  JobChange,
  JobQuery,
  NewJob,
  NewOccurrence,
  NewRun,
  OccurrenceQuery,
  OverdueMark,
  Page,
  RunQuery,
  EventAnnouncement,
  RunOutputBatch,
  RunEnd,
  RunStart,
  Store,
  StoreCapabilities,
  StoreChange,
  StoredEvent,
} from '../store.js';
import * as deliveryQueries from './delivery-queries.js';
import * as tokenQueries from './token-queries.js';
import type { StoreDialect } from './dialect.js';
import { changeJob, createJob } from './job-scripts.js';
import { listOccurrences, listRunsByInstant } from './ledger-queries.js';
import { listAudit, listJobs, listRuns } from './list-queries.js';
import { auditToRow, jobToRow, newJobToJob, rowToJob, rowToRun } from './row-mapping.js';
import {
  EventBatch,
  eventRow,
  runOutputEvent,
  runStartedEvent,
  storedEvent,
  type NewEvent,
} from './event-scripts.js';
import { readEventIds, readEvents, readRunOutput } from './event-queries.js';
import {
  cancelWaitingRun,
  claimRunAlone,
  finishRun,
  finishRuns,
  insertRun,
  retryRun,
} from './run-scripts.js';
import { recordFire, recordFires } from './fire-scripts.js';
import { step, type Awaitable, type Script } from './script.js';
import type { EventRow } from './tables.js';
import type { Session } from './session.js';

/**
 * The Store on a SQL database: the domain rules, rows and queries, written once over a dialect that
 * brings the connection, the transactions and the SQL that differs. Every operation that writes more than
 * one row runs as a script in one transaction; compare-and-set conditions sit in the UPDATEs' WHERE
 * clauses and in unique indexes, so they also hold against other daemons writing to the same database.
 */
export class SqlStore implements Store {
  readonly capabilities: StoreCapabilities;
  private eventNode = '';
  private readonly eventListeners = new Set<(events: StoredEvent[]) => void>();

  constructor(private readonly dialect: StoreDialect) {
    this.capabilities = dialect.capabilities;
  }

  /** A script in one transaction, whose events go to the listeners once it has committed. */
  private async withEvents<T>(script: (session: Session, batch: EventBatch) => Script<T>): Promise<T> {
    const batch = new EventBatch(this.eventNode);
    const result = await this.dialect.transaction((session) => script(session, batch));
    this.announce(batch.stored);
    return result;
  }

  /**
   * One statement that writes an event (and what it tells of): no transaction around it, so on PostgreSQL
   * it costs one round trip, as the write it replaces did.
   */
  private async withEvent(
    event: NewEvent,
    write: (session: Session, row: EventRow) => Awaitable<number>,
  ): Promise<void> {
    const node = this.eventNode;
    const id = await this.dialect.write((session) => write(session, eventRow(event, node)));
    this.announce([storedEvent(event, id, node)]);
  }

  private announce(events: StoredEvent[]): void {
    if (events.length === 0) return;
    this.dialect.eventsStored(Math.max(...events.map((event) => event.id)));
    for (const listener of this.eventListeners) listener(events);
  }

  markEventsWith(node: string): void {
    this.eventNode = node;
  }

  onEventsStored(listener: (events: StoredEvent[]) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  async readEvents(query: EventsQuery & { withoutDataOf?: string }): Promise<StoredEvent[]> {
    return readEvents(this.dialect, query);
  }

  async readEventIds(query: EventsQuery): Promise<number[]> {
    return readEventIds(this.dialect, query);
  }

  async readRunOutput(runId: string): Promise<StoredEvent[]> {
    return readRunOutput(this.dialect, runId);
  }

  async latestEventId(): Promise<number> {
    return (await this.session.first(this.statements.latestEventId))?.id ?? 0;
  }

  async pruneEvents(before: number, limit: number): Promise<number> {
    return this.dialect.retention.pruneEvents(before, limit);
  }

  async pruneDeliveries(before: number, limit: number): Promise<number> {
    return this.dialect.retention.pruneDeliveries(before, limit);
  }

  async watchEvents(
    onAnnounce: (announcement: EventAnnouncement) => void,
    onError: (error: Error) => void,
  ): Promise<(() => Promise<void>) | null> {
    return this.dialect.watchEvents(onAnnounce, onError);
  }

  async recordRunStarted(start: RunStart): Promise<void> {
    await this.withEvent(runStartedEvent(start), (session, row) =>
      session.startRun({ runId: start.runId, pid: start.pid, startedAt: start.at }, row),
    );
  }

  async recordRunsStarted(starts: readonly RunStart[]): Promise<void> {
    if (starts.length === 0) return;
    const node = this.eventNode;
    const events = starts.map(runStartedEvent);
    const ids = await this.dialect.write((session) =>
      session.startRuns(
        starts.map(({ runId, pid, at }) => ({ runId, pid, startedAt: at })),
        events.map((event) => eventRow(event, node)),
      ),
    );
    this.announce(events.map((event, index) => storedEvent(event, ids[index]!, node)));
  }

  async appendRunOutput(output: RunOutputBatch): Promise<void> {
    await this.withEvent(runOutputEvent(output), (session, row) => session.insertEvent(row));
  }

  private get session() {
    return this.dialect.session;
  }

  private get statements() {
    return this.dialect.session.statements;
  }

  async createJob(input: NewJob, audit: AuditStamp, idempotency?: IdempotencyClaim): Promise<Job> {
    const job = newJobToJob(input);
    return this.withEvents((session, batch) =>
      createJob(this.dialect, session, batch, job, audit, idempotency),
    );
  }

  async findIdempotencyRecord(key: string): Promise<IdempotencyRecord | null> {
    const row = await this.session.first(this.statements.idempotencyByKey, { key });
    return row ? { ...row, response: JSON.parse(row.response) as unknown } : null;
  }

  async findJob(ref: string, options: { includeCancelledNames?: boolean } = {}): Promise<Job | null> {
    const row =
      (await this.session.jobByRef(ref)) ??
      (options.includeCancelledNames
        ? await this.session.first(this.statements.newestCancelledJobByName, { name: ref })
        : undefined);
    return row ? rowToJob(row) : null;
  }

  async listJobs(query: JobQuery): Promise<Page<Job>> {
    return listJobs(this.dialect, query);
  }

  async updateJob(id: string, expectedVersion: number, change: JobChange, audit: AuditStamp): Promise<Job> {
    return this.withEvents((session, batch) =>
      changeJob(this.dialect, session, batch, id, expectedVersion, change, audit.at, audit),
    );
  }

  async rewriteDefinition(job: Job): Promise<boolean> {
    const { id, version, definition } = jobToRow(job, this.dialect.encoding);
    const written = await this.dialect.write((session) =>
      session.first(session.statements.rewriteDefinition, { id, version, definition }),
    );
    return written !== undefined;
  }

  async cancelJob(id: string, expectedVersion: number, now: number, audit: AuditStamp): Promise<Job> {
    return this.withEvents((session, batch) =>
      changeJob(this.dialect, session, batch, id, expectedVersion, { state: 'cancelled' }, now, audit),
    );
  }

  async countJobs(state: JobState): Promise<number> {
    return (await this.session.first(this.statements.countJobsInState[state]))?.count ?? 0;
  }

  async dueJobs(until: number, limit: number): Promise<Job[]> {
    return (await this.session.all(this.statements.dueJobs, { until, limit })).map(rowToJob);
  }

  async watchChanges(
    onChange: (change: StoreChange) => void,
    onError: (error: Error) => void,
  ): Promise<(() => Promise<void>) | null> {
    return this.dialect.watchChanges(onChange, onError);
  }

  async relayKill(runId: string, reason: string): Promise<void> {
    await this.dialect.relayKill(runId, reason);
  }

  async recordFire(fire: Fire): Promise<FiredInstant | null> {
    try {
      return await this.withEvents((session, batch) => recordFire(this.dialect, session, batch, fire));
    } catch (error) {
      // Another daemon fired this instant first; the rollback undid our advance too.
      if (this.dialect.isUniqueViolation(error, 'runKey')) return null;
      throw error;
    }
  }

  async recordFires(fires: readonly Fire[]): Promise<(FiredInstant | null)[]> {
    if (fires.length === 0) return [];
    return this.withEvents((session, batch) => recordFires(this.dialect, session, batch, fires));
  }

  async insertRun(run: NewRun, idempotency?: IdempotencyClaim): Promise<Run> {
    return this.withEvents((session, batch) => insertRun(this.dialect, session, batch, run, idempotency));
  }

  async claimRun(runId: string, startedAt: number): Promise<boolean> {
    const claimed = await this.dialect.write((session) =>
      session.first(session.statements.claimRun, { id: runId, startedAt, node: this.claimingNode() }),
    );
    return claimed !== undefined;
  }

  async claimRunAlone(runId: string, startedAt: () => number): Promise<AloneClaim> {
    const node = this.claimingNode();
    return this.dialect.transaction((session) => claimRunAlone(session, runId, startedAt, node));
  }

  /** The node a claimed run is marked with: this process's, once it is known. */
  private claimingNode(): string | null {
    return this.eventNode === '' ? null : this.eventNode;
  }

  async setRunPid(runId: string, pid: number): Promise<void> {
    await this.dialect.write((session) => session.run(session.statements.setRunPid, { id: runId, pid }));
  }

  async finishRun(
    runId: string,
    outcome: RunOutcome,
    retry?: NewRun,
    deliveries?: NewDelivery[],
  ): Promise<FinishedRun> {
    return this.withEvents((session, batch) =>
      finishRun(this.dialect, session, batch, runId, outcome, retry, deliveries),
    );
  }

  async finishRuns(ends: readonly RunEnd[]): Promise<(FinishedRun | null)[]> {
    if (ends.length === 0) return [];
    return this.withEvents((session, batch) => finishRuns(this.dialect, session, batch, ends));
  }

  async cancelWaitingRun(runId: string, outcome: RunOutcome): Promise<Run | null> {
    return this.withEvents((session, batch) =>
      cancelWaitingRun(this.dialect, session, batch, runId, outcome),
    );
  }

  async retryRun(runId: string, retry: NewRun): Promise<Run> {
    return this.withEvents((session, batch) => retryRun(this.dialect, session, batch, runId, retry));
  }

  async listRunningRuns(): Promise<RunSummary[]> {
    return this.session.all(this.statements.runningRuns);
  }

  async dueRuns(until: number, limit: number): Promise<Run[]> {
    return (await this.session.all(this.statements.dueRuns, { until, limit })).map(rowToRun);
  }

  async findRun(id: string): Promise<Run | null> {
    const row = await this.session.first(this.statements.runById, { id });
    return row ? rowToRun(row) : null;
  }

  async findRunIdsByPrefix(prefix: string, limit: number): Promise<string[]> {
    const rows = await this.session.all(this.statements.runIdsInRange, { ...idPrefixRange(prefix), limit });
    return rows.map((row) => row.id);
  }

  async listRuns(query: RunQuery): Promise<Page<RunSummary>> {
    return listRuns(this.dialect, query);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    const row = auditToRow(entry, entry.jobId, entry.before, entry.after);
    await this.dialect.write((session) => session.run(session.statements.insertAudit, row));
  }

  async listAudit(query: { limit: number; cursor?: string; jobId?: string }): Promise<Page<AuditEntry>> {
    return listAudit(this.dialect, query);
  }

  async pruneRunsFinishedBefore(states: RunState[], before: number, limit: number): Promise<number> {
    return this.dialect.retention.pruneRunsFinishedBefore(states, before, limit);
  }

  async pruneRunsBeyond(keep: number, limit: number): Promise<number> {
    return this.dialect.retention.pruneRunsBeyond(keep, limit);
  }

  async pruneAudit(before: number, limit: number): Promise<number> {
    return this.dialect.retention.pruneAudit(before, limit);
  }

  async purgeCancelledJobs(before: number, limit: number): Promise<number> {
    return this.dialect.retention.purgeCancelledJobs(before, limit);
  }

  async recordOccurrences(entries: NewOccurrence[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map((entry) => occurrenceToRow(entry, this.dialect.encoding));
    await this.dialect.transaction(function* (session) {
      yield* step(session.insertOccurrences(rows));
    });
  }

  async listOccurrences(query: OccurrenceQuery): Promise<LedgerEntry[]> {
    return listOccurrences(this.dialect, query);
  }

  async listRunsByInstant(query: OccurrenceQuery): Promise<RunSummary[]> {
    return listRunsByInstant(this.dialect, query);
  }

  async listDependents(upstreamId: string): Promise<Job[]> {
    return (await this.session.all(this.statements.dependentsOf, { upstreamId })).map(rowToJob);
  }

  async listDependencyEdges(): Promise<DependencyEdge[]> {
    return this.session.all(this.statements.dependencyEdges);
  }

  async enqueueDeliveries(deliveries: NewDelivery[]): Promise<number> {
    if (deliveries.length === 0) return 0;
    return this.dialect.transaction((session) =>
      deliveryQueries.insertDeliveries(this.dialect.tables, session, deliveries),
    );
  }

  async dueDeliveries(until: number, limit: number): Promise<Delivery[]> {
    return deliveryQueries.dueDeliveries(this.dialect, until, limit);
  }

  async claimDelivery(id: string, dueAt: number, leaseUntil: number): Promise<boolean> {
    return deliveryQueries.claimDelivery(this.dialect, id, dueAt, leaseUntil);
  }

  async recordDeliveryAttempt(id: string, attempt: DeliveryAttempt): Promise<boolean> {
    return deliveryQueries.recordDeliveryAttempt(this.dialect, id, attempt);
  }

  async listDeliveries(query: DeliveryQuery): Promise<Delivery[]> {
    return deliveryQueries.listDeliveries(this.dialect, query);
  }

  async countDeliveries(
    jobId: string,
    target: string,
    since: number,
    states: DeliveryState[],
  ): Promise<number> {
    return deliveryQueries.countDeliveries(this.dialect, jobId, target, since, states);
  }

  async markOverdue(mark: OverdueMark): Promise<boolean> {
    return this.dialect.transaction((session) => deliveryQueries.markOverdue(this.dialect, session, mark));
  }

  async clearOverdue(jobId: string, deliveries: NewDelivery[]): Promise<number | null> {
    return this.dialect.transaction((session) =>
      deliveryQueries.clearOverdue(this.dialect, session, jobId, deliveries),
    );
  }

  createApiToken(token: NewApiToken): Promise<ApiToken | null> {
    return tokenQueries.insertApiToken(this.dialect, token);
  }

  listApiTokens(): Promise<ApiToken[]> {
    return tokenQueries.listApiTokens(this.dialect);
  }

  async findApiTokenByHash(hash: string): Promise<ApiToken | null> {
    return (await this.session.first(this.statements.apiTokenByHash, { hash })) ?? null;
  }

  revokeApiToken(name: string, at: number): Promise<ApiToken | null> {
    return tokenQueries.revokeApiToken(this.dialect, name, at);
  }

  touchApiToken(id: string, at: number): Promise<void> {
    return tokenQueries.touchApiToken(this.dialect, id, at);
  }

  async listOverdue(): Promise<{ jobId: string; since: number }[]> {
    return deliveryQueries.listOverdue(this.dialect);
  }

  async latestSuccess(jobId: string): Promise<{ runId: string; finishedAt: number } | null> {
    return deliveryQueries.latestSuccess(this.dialect, jobId);
  }

  async ping(): Promise<void> {
    await this.dialect.ping();
  }

  async secretKeyId(): Promise<string | null> {
    return (await this.session.first(this.statements.secretKeyId))?.value ?? null;
  }

  async recordSecretKeyId(keyId: string, expected: string | null): Promise<boolean> {
    const written = await this.dialect.write((session) =>
      expected === null
        ? session.first(session.statements.insertSecretKeyId, { keyId })
        : session.first(session.statements.replaceSecretKeyId, { keyId, expected }),
    );
    return written !== undefined;
  }

  async nextFenceEpoch(): Promise<number> {
    const row = await this.dialect.write((session) => session.first(session.statements.nextFenceEpoch));
    if (!row) throw new Error('the fence epoch upsert returned no row');
    return Number(row.value);
  }

  async close(): Promise<void> {
    await this.dialect.close();
  }
}
