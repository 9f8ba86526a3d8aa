import type pg from 'pg';
import type { ClusterNode, ClusterNodeInfo, CoordinatorLease } from '../../core/cluster/membership.js';
import type { ShardAssignment, ShardMap } from '../../core/cluster/shard-map.js';

/**
 * The database's clock in ms. Every heartbeat and lease instant is stamped with it, never a host's
 * clock, so hosts whose clocks are skewed still agree on who is alive and when a lease ends.
 * clock_timestamp() rather than now(): a statement that waited for a lock must see the time it runs at.
 */
const DB_NOW_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

const LEASE = `'coordinator'`;

const HEARTBEAT = `
  WITH clock AS (SELECT ${DB_NOW_MS} AS now_ms)
  INSERT INTO cluster_nodes (id, hostname, address, version, labels, load, started_at, heartbeat_at)
  SELECT $1, $2, $3, $4, $5::jsonb, $6, coalesce($7::bigint, clock.now_ms), clock.now_ms FROM clock
  ON CONFLICT (id) DO UPDATE SET
    hostname = excluded.hostname, address = excluded.address, version = excluded.version,
    labels = excluded.labels, load = excluded.load,
    started_at = CASE WHEN $7::bigint IS NULL THEN cluster_nodes.started_at ELSE excluded.started_at END,
    heartbeat_at = excluded.heartbeat_at
  RETURNING heartbeat_at`;

const LIST_NODES = `
  SELECT id, hostname, address, version, labels, load, started_at, heartbeat_at, ${DB_NOW_MS} AS now_ms
  FROM cluster_nodes ORDER BY id`;

const ENSURE_LEASE_ROW = `INSERT INTO cluster_lease (name) VALUES (${LEASE}) ON CONFLICT DO NOTHING`;

/**
 * One atomic statement: the holder renews (same term) while its lease runs; anyone takes an expired or
 * free lease with the next term (so does a holder whose own lease ran out: it may have stopped acting,
 * and whatever it does next must be told apart). No row back means someone else holds it.
 */
const ACQUIRE_OR_RENEW = `
  WITH clock AS (SELECT ${DB_NOW_MS} AS now_ms)
  UPDATE cluster_lease AS lease SET
    holder = $1::text,
    term = CASE WHEN lease.holder = $1::text AND lease.expires_at > clock.now_ms
                THEN lease.term ELSE lease.term + 1 END,
    expires_at = clock.now_ms + $2::bigint
  FROM clock
  WHERE lease.name = ${LEASE}
    AND (lease.holder = $1::text OR lease.holder IS NULL OR lease.expires_at <= clock.now_ms)
  RETURNING lease.holder, lease.term, lease.expires_at, clock.now_ms`;

/**
 * A separate statement after a refusal, not a branch of the UPDATE: the UPDATE waited for the winner's
 * row lock, but a SELECT in the same statement would still see the row as it was before the winner.
 */
const READ_LEASE = `
  SELECT holder, term, expires_at, ${DB_NOW_MS} AS now_ms FROM cluster_lease WHERE name = ${LEASE}`;

/** Ends the lease now, if it is still this holder's of this term, so the next node need not wait the TTL. */
const RELEASE = `
  WITH clock AS (SELECT ${DB_NOW_MS} AS now_ms)
  UPDATE cluster_lease AS lease SET expires_at = clock.now_ms FROM clock
  WHERE lease.name = ${LEASE} AND lease.holder = $1 AND lease.term = $2 AND lease.expires_at > clock.now_ms
  RETURNING lease.term`;

/**
 * Writes the map only while the lease is the publisher's, of that term, and running. FOR SHARE on the
 * lease row makes a concurrent takeover wait for this statement (or this statement re-check against the
 * takeover), and the map's term never goes down, even if an older publish arrives late.
 */
const PUBLISH_MAP = `
  WITH clock AS (SELECT ${DB_NOW_MS} AS now_ms),
  lease AS (
    SELECT lease.holder, lease.term FROM cluster_lease AS lease, clock
    WHERE lease.name = ${LEASE} AND lease.holder = $1 AND lease.term = $2 AND lease.expires_at > clock.now_ms
    FOR SHARE OF lease
  )
  INSERT INTO cluster_map (id, term, coordinator, published_at, map)
  SELECT 1, lease.term, lease.holder, clock.now_ms, $3::jsonb FROM lease, clock
  ON CONFLICT (id) DO UPDATE SET
    term = excluded.term, coordinator = excluded.coordinator,
    published_at = excluded.published_at, map = excluded.map
  WHERE cluster_map.term <= excluded.term
  RETURNING term`;

const LOAD_MAP = 'SELECT term, coordinator, published_at, map FROM cluster_map WHERE id = 1';

/** Read inside a fire transaction: the FOR SHARE lock orders the fire against any publish of a new map. */
const MAP_TERM_FOR_SHARE = 'SELECT term FROM cluster_map WHERE id = 1 FOR SHARE';

interface NodeRow {
  id: string;
  hostname: string;
  address: string;
  version: string;
  labels: Record<string, string>;
  load: number;
  started_at: string;
  heartbeat_at: string;
  now_ms: string;
}

interface LeaseRow {
  holder: string | null;
  term: string;
  expires_at: string;
  now_ms: string;
}

interface MapRow {
  term: string;
  coordinator: string;
  published_at: string;
  map: ShardAssignment;
}

/**
 * Membership, the coordinator lease and the shard map of a cluster that shares one PostgreSQL. Give it a
 * pool from openPostgresPool: that pool ignores errors on idle connections (a server restart), which
 * would otherwise crash the process; failed queries reject and the member's loop retries.
 */
export class PostgresClusterStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Records that the node is alive (creating its row on first call); returns the database's time. */
  async heartbeat(node: ClusterNodeInfo): Promise<number> {
    const { rows } = await this.pool.query<{ heartbeat_at: string }>(HEARTBEAT, [
      node.id,
      node.hostname,
      node.address,
      node.version,
      JSON.stringify(node.labels),
      node.load,
      node.startedAt ?? null,
    ]);
    return Number(rows[0]?.heartbeat_at);
  }

  /** Every node that has not left, live or not, with the database's time to judge them by. */
  async listNodes(): Promise<{ nodes: ClusterNode[]; dbNow: number }> {
    const { rows } = await this.pool.query<NodeRow>(LIST_NODES);
    const nodes = rows.map((row) => ({
      id: row.id,
      hostname: row.hostname,
      address: row.address,
      version: row.version,
      labels: row.labels,
      load: row.load,
      startedAt: Number(row.started_at),
      heartbeatAt: Number(row.heartbeat_at),
    }));
    // With no rows there is no row to carry the time, so it is asked for on its own.
    const dbNow = rows[0] ? Number(rows[0].now_ms) : await this.dbNow();
    return { nodes, dbNow };
  }

  /** A clean leave: the node is gone from the next map without waiting to be declared dead. */
  async removeNode(id: string): Promise<void> {
    await this.pool.query('DELETE FROM cluster_nodes WHERE id = $1', [id]);
  }

  async acquireOrRenewLease(nodeId: string, ttlMs: number): Promise<CoordinatorLease> {
    await this.pool.query(ENSURE_LEASE_ROW);
    const taken = await this.pool.query<LeaseRow>(ACQUIRE_OR_RENEW, [nodeId, Math.ceil(ttlMs)]);
    if (taken.rows[0]) return toLease(taken.rows[0], true);
    const held = await this.pool.query<LeaseRow>(READ_LEASE);
    if (!held.rows[0]) throw new Error('the cluster_lease row is missing right after it was ensured');
    return toLease(held.rows[0], false);
  }

  /** Hands the lease over at once on a clean shutdown; false if it was no longer this node's term. */
  async releaseLease(nodeId: string, term: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(RELEASE, [nodeId, term]);
    return rowCount === 1;
  }

  /** Publishes the map as coordinator of `term`; false (and nothing written) if that lease is not current. */
  async publishMap(nodeId: string, term: number, assignment: ShardAssignment): Promise<boolean> {
    const map = JSON.stringify({ nodes: assignment.nodes, owners: assignment.owners });
    const { rowCount } = await this.pool.query(PUBLISH_MAP, [nodeId, term, map]);
    return rowCount === 1;
  }

  async loadMap(): Promise<ShardMap | null> {
    const { rows } = await this.pool.query<MapRow>(LOAD_MAP);
    const row = rows[0];
    if (!row) return null;
    return {
      term: Number(row.term),
      coordinator: row.coordinator,
      publishedAt: Number(row.published_at),
      nodes: row.map.nodes,
      owners: row.map.owners,
    };
  }

  private async dbNow(): Promise<number> {
    const { rows } = await this.pool.query<{ now_ms: string }>(`SELECT ${DB_NOW_MS} AS now_ms`);
    return Number(rows[0]?.now_ms);
  }
}

function toLease(row: LeaseRow, acquired: boolean): CoordinatorLease {
  return {
    holder: row.holder,
    term: Number(row.term),
    expiresAt: Number(row.expires_at),
    dbNow: Number(row.now_ms),
    acquired,
  };
}

/**
 * For fire transactions: whether the published map is still of `term`, the term the firing node took
 * its shards from. Run it inside the transaction that inserts the run, before the insert: the row lock
 * waits for a publish in progress, and a publish waits for this transaction, so a node firing from a
 * map that has been replaced gets false and must roll back instead of firing twice.
 */
export async function mapTermIsCurrent(client: pg.ClientBase, term: number): Promise<boolean> {
  const { rows } = await client.query<{ term: string }>(MAP_TERM_FOR_SHARE);
  return rows[0] !== undefined && Number(rows[0].term) === term;
}
