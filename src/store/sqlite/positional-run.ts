import type Database from 'better-sqlite3';
import { is, Param, Placeholder } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';

/** drizzle on one better-sqlite3 connection, which it gives as `$client`. */
export type SqliteDrizzle = BetterSQLite3Database & { $client: Database.Database };

type Values = Record<string, unknown>;

/** A prepared statement run by better-sqlite3 itself, its parameters bound by position. */
export type PositionalRun = (values?: object) => Database.RunResult;

/**
 * A drizzle query's `run`, with the same parameters and encoders as drizzle's: drizzle finds out what each
 * parameter is (placeholder, encoded placeholder or constant) on every run, by walking prototypes, which
 * cost a create's three inserts about 5 us; this finds out once. Reads stay drizzle's, which maps their
 * columns to fields.
 */
export function positionalRun(
  sqlite: Database.Database,
  query: { sql: string; params: unknown[] },
): PositionalRun {
  const binders = query.params.map(binderOf);
  // Prepared at its first run: most of the store's statements are reads, which never run this way.
  let statement: Database.Statement | undefined;
  return (values) => {
    statement ??= sqlite.prepare(query.sql);
    const row = (values ?? {}) as Values;
    return statement.run(binders.map((bind) => bind(row)));
  };
}

function binderOf(param: unknown): (values: Values) => unknown {
  if (is(param, Placeholder)) {
    const { name } = param;
    return (values) => valueOf(values, name);
  }
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { encoder } = param;
    const { name } = param.value;
    return (values) => encoder.mapToDriverValue(valueOf(values, name));
  }
  return () => param;
}

function valueOf(values: Values, name: string): unknown {
  if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
  return values[name];
}
