import type { Column, Placeholder, SQL, SQLWrapper, Subquery, Table } from 'drizzle-orm';

/**
 * The part of drizzle's query builder that its SQLite and PostgreSQL dialects share, as the store uses it:
 * both builders have these methods with these meanings and build each dialect's SQL from the same calls.
 * Their own types differ per dialect, so each dialect hands its database over as this facade, and the
 * shared statements and queries name the rows they return themselves (checked against each schema).
 */
export interface QueryBuilder {
  select(fields?: Record<string, Column | SQL | SQL.Aliased>): QueryChain;
  insert(table: Table): QueryChain;
  update(table: Table): QueryChain;
  delete(table: Table): QueryChain;
}

export interface QueryChain extends SQLWrapper {
  from(source: Table | Subquery): QueryChain;
  innerJoin(table: Table, on: SQL | undefined): QueryChain;
  where(condition: SQL | undefined): QueryChain;
  orderBy(...order: SQL[]): QueryChain;
  limit(limit: RowLimit): QueryChain;
  values(values: Record<string, unknown> | Record<string, unknown>[]): QueryChain;
  set(values: Record<string, unknown>): QueryChain;
  onConflictDoNothing(): QueryChain;
  onConflictDoUpdate(config: { target: Column; set: Record<string, unknown>; setWhere?: SQL }): QueryChain;
  returning(fields?: Record<string, Column | SQL | SQL.Aliased>): QueryChain;
  /** A select as a subquery of another, so that its ORDER BY and LIMIT stay its own (SQLite needs this). */
  as(alias: string): Subquery;
  unionAll(other: QueryChain): QueryChain;
}

declare const rowLimitBrand: unique symbol;

/** A LIMIT as its dialect writes it (`rowLimit` of the dialect): a chain takes no other, so none is missed. */
export type RowLimit = (number | Placeholder | SQL) & { readonly [rowLimitBrand]: true };

declare const rowType: unique symbol;

/** A dialect's prepared statement, tagged with the row it returns; only that dialect's session runs it. */
export interface Statement<Row> {
  readonly [rowType]?: Row;
  getQuery(): { sql: string; params: unknown[] };
}
