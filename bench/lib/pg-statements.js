// BENCH_PG_STATEMENTS=1: the PostgreSQL server loads pg_stat_statements, and a federation window prints the
// statements its daemons ran per fire (calls in the window / runs created in it) and the buffers each call
// hit, the most time first, then each table's rows inserted and updated in the window, with how many of the
// updates were HOT (no index entry written).
// Off by default: the extension's bookkeeping is part of what would be measured.
import pg from 'pg';

export const PG_STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';

/** The server flags that load the extension, when asked for. */
export const statementFlags = () =>
  PG_STATEMENTS ? ['-c', 'shared_preload_libraries=pg_stat_statements'] : [];

async function withClient(url, work) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Forgets the statements counted so far (the fill, the daemons' start-up); null when not asked for. */
export async function resetStatements(url) {
  if (!PG_STATEMENTS) return null;
  await withClient(url, async (client) => {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    await client.query('SELECT pg_stat_reset()');
  });
  return { url };
}

/**
 * The `top` statements of the database by execution time since the reset, with calls per fire and shared
 * buffers hit per call (a statement that reads far more pages than its rows need has a bad plan).
 */
export async function readStatements(counting, fires, top = 15) {
  if (counting === null) return null;
  return withClient(counting.url, async (client) => {
    const { rows } = await client.query(
      `SELECT calls::bigint AS calls, total_exec_time AS ms, shared_blks_hit AS hit, query FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time DESC`,
    );
    const { rows: tables } = await client.query(
      `SELECT relname AS table, n_tup_ins AS inserted, n_tup_upd AS updated, n_tup_hot_upd AS hot,
          n_tup_newpage_upd AS "newPage"
        FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd > 0 ORDER BY n_tup_ins + n_tup_upd DESC`,
    );
    const total = rows.reduce((sum, row) => sum + Number(row.calls), 0);
    return {
      perFire: fires > 0 ? total / fires : null,
      top: rows.slice(0, top).map((row) => ({
        perFire: fires > 0 ? Number(row.calls) / fires : null,
        calls: Number(row.calls),
        ms: Number(row.ms),
        hitsPerCall: Math.round(Number(row.hit) / Number(row.calls)),
        query: row.query.replace(/\s+/g, ' ').slice(0, 140),
      })),
      // Row writes per table: an update that is not HOT writes an entry in each of the table's indexes.
      tables: tables.map((row) => ({
        table: row.table,
        inserted: Number(row.inserted),
        updated: Number(row.updated),
        hot: Number(row.hot),
        newPage: Number(row.newPage),
      })),
    };
  });
}
