import { performance } from 'node:perf_hooks';
import { openSqliteConnection } from '../../dist/store/sqlite/connection.js';
import { SqliteStore } from '../../dist/store/sqlite/sqlite-store.js';
import { summarize } from './stats.js';

/**
 * Times a read of the store in this process, `times` times one after another (after one untimed read),
 * on the file a daemon will open, before it opens it: what the read costs the daemon's event loop, since
 * better-sqlite3 reads synchronously. `read(store)` returns what it found, to check the read is the one meant.
 */
export async function timeStoreRead(databasePath, times, read) {
  const sqlite = openSqliteConnection(databasePath);
  const store = new SqliteStore(sqlite);
  try {
    const found = await read(store);
    const latenciesMs = [];
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      await read(store);
      latenciesMs.push(performance.now() - started);
    }
    return { found, latency: summarize(latenciesMs) };
  } finally {
    await store.close();
  }
}

/** The overdue watch's read: every live job with a dead-man's switch, a page of 500. */
export async function jobsExpectingSuccess(store) {
  const page = await store.listJobs({ limit: 500, states: ['active', 'paused'], expectingSuccess: true });
  return page.items.length;
}
