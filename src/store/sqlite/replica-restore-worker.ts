// A worker thread: takes a snapshot file's rows into a replica's database on a connection of its own (see
// SqliteReplica.replaceWithFile), so that the member's event loop goes on answering meanwhile. It posts the
// log index the rows are as of; a failure is thrown, and reaches the daemon as the worker's error.
import { parentPort, workerData } from 'node:worker_threads';
import { openSecondSqliteConnection } from './connection.js';
import { takeRowsOfFile, type RestoreAside } from './sqlite-replica.js';

const { database, file } = workerData as RestoreAside;
const sqlite = openSecondSqliteConnection(database);
try {
  parentPort?.postMessage(takeRowsOfFile(sqlite, file));
} finally {
  sqlite.close();
}
