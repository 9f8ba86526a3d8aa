import type { RunInFlight } from '../../core/policy/fire-overlap.js';
import type { QueryBuilder } from '../sql/query-builder.js';
import type { JobRecord, RunRecord } from '../sql/records.js';
import type { FinishingRun, Params, RunPid, Session } from '../sql/session.js';
import { prepareStatements, sqliteTables, type SqliteStatement } from './statements.js';
import { placeholders } from '../sql/columns.js';
import { positionalRun, type SqliteDrizzle } from './positional-run.js';
import { EVENT_COLUMNS, type EventRow } from '../sql/tables.js';

/** The one connection of a SQLite store, whose statements answer synchronously. */
export function openSqliteSession(db: SqliteDrizzle): Session {
  const statements = prepareStatements(db);
  const sqlite = (statement: unknown) => statement as SqliteStatement;
  // No RETURNING: SQLite carries it out as a trigger, and a statement with a trigger opens (and releases) a
  // statement journal; the row id is the event's id already. ~10 us a row less, three rows a fire.
  const eventInsert = positionalRun(
    db.$client,
    db
      .insert(sqliteTables.events)
      .values(placeholders(EVENT_COLUMNS) as never)
      .toSQL(),
  );
  const insertEvent = (row: EventRow): number => Number(eventInsert(row).lastInsertRowid);
  const finishRun = (values: FinishingRun): RunRecord | undefined =>
    sqlite(statements.finishRun).run(values).changes === 1
      ? (sqlite(statements.runById).get({ id: values.id }) as RunRecord)
      : undefined;
  const startRun = ({ runId, pid, startedAt }: RunPid, event: EventRow): number => {
    if (pid !== null) sqlite(statements.setRunStart).run({ id: runId, pid, startedAt });
    return insertEvent(event);
  };
  return {
    statements,
    first: <Row>(statement: unknown, params?: Params) => sqlite(statement).get(params) as Row | undefined,
    all: <Row>(statement: unknown, params?: Params) => sqlite(statement).all(params) as Row[],
    run: (statement, params) => {
      sqlite(statement).run(params);
    },
    jobByRef: (ref) =>
      (sqlite(statements.jobById).get({ id: ref }) ?? sqlite(statements.liveJobByName).get({ name: ref })) as
        JobRecord | undefined,
    query: <Row>(build: (db: QueryBuilder) => unknown) =>
      (build(db as unknown as QueryBuilder) as { all(): Row[] }).all(),
    finishRun: (values) => finishRun(values),
    finishRuns: (values) => values.flatMap((row) => finishRun(row) ?? []),
    insertOccurrences: (rows) => {
      for (const row of rows) sqlite(statements.insertOccurrence).run(row);
    },
    // One statement per row: SQLite answers at once, so a statement per row costs no round trip.
    advanceNextRuns: (advances) =>
      advances.flatMap((advance) => {
        const job = sqlite(statements.advanceNextRun).get(advance) as { name: string } | undefined;
        return job ? [{ id: advance.id, name: job.name }] : [];
      }),
    runsInFlightOf: (keys) =>
      keys.flatMap((key) =>
        (sqlite(statements.runsInFlight).all(key) as RunInFlight[]).map((run) => ({ ...run, ...key })),
      ),
    insertRuns: (runs) => {
      for (const run of runs) sqlite(statements.insertRun).run(run);
    },
    insertEvents: (rows) => rows.map(insertEvent),
    insertEvent,
    // Inside one group-commit write: the pid and the event are stored together or not at all.
    startRun: (start, event) => startRun(start, event),
    startRuns: (starts, events) => starts.map((start, index) => startRun(start, events[index]!)),
    // One daemon is the only writer of a SQLite store: no one else needs telling, and there is no shard map.
    announceJobChange: () => undefined,
    announceWaitingRun: () => undefined,
    assertMapInForce: () => undefined,
  };
}
