import { sql } from 'drizzle-orm';
import { bigint, check, integer, jsonb, pgTable, smallint, text } from 'drizzle-orm/pg-core';

// drizzle-kit loads this file on its own, so it imports nothing from src/ (like schema.ts).

/** All instants are integer milliseconds since the epoch on the DATABASE's clock, never a host's. */
const instant = (name: string) => bigint(name, { mode: 'number' });

/** One row per daemon in the cluster, kept fresh by its heartbeats and deleted when it leaves cleanly. */
export const clusterNodes = pgTable('cluster_nodes', {
  id: text('id').primaryKey(),
  hostname: text('hostname').notNull(),
  /** The node's metrics/health address, or '' when it serves none. */
  address: text('address').notNull(),
  version: text('version').notNull(),
  labels: jsonb('labels').$type<Record<string, string>>().notNull(),
  /** Runs the node has running right now. */
  load: integer('load').notNull(),
  startedAt: instant('started_at').notNull(),
  heartbeatAt: instant('heartbeat_at').notNull(),
});

/** The coordinator lease: one row, 'coordinator'. Its term is the fencing token and only ever grows. */
export const clusterLease = pgTable('cluster_lease', {
  name: text('name').primaryKey(),
  holder: text('holder'),
  term: bigint('term', { mode: 'number' }).notNull().default(0),
  expiresAt: instant('expires_at').notNull().default(0),
});

/**
 * The shard map the coordinator last published: one row (id 1). Fire transactions read its term FOR
 * SHARE, so a publish (which takes the row lock) is ordered against every fire.
 */
export const clusterMap = pgTable(
  'cluster_map',
  {
    id: smallint('id').primaryKey(),
    term: bigint('term', { mode: 'number' }).notNull(),
    coordinator: text('coordinator').notNull(),
    publishedAt: instant('published_at').notNull(),
    /** `{ nodes, owners }`: written and read whole. */
    map: jsonb('map').notNull(),
  },
  () => [check('cluster_map_single_row_check', sql`id = 1`)],
);
