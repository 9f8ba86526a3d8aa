import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';
import { startEmbeddedPostgres, type RunningServer } from '../support/postgres-server.js';

interface Certificates {
  ca: string;
  /** A CA that signed nothing the server shows. */
  otherCa: string;
  clientCert: string;
  clientKey: string;
  serverCert: string;
  serverKey: string;
}

/** The role whose connections the server accepts only with a client certificate naming it. */
const CERT_USER = 'sched_cert';
const CERT_PASSWORD = 'cert-user-password';

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA, a server certificate it signs for 127.0.0.1 and localhost, and a client certificate for CERT_USER. */
function makeCertificates(dir: string): Certificates {
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  for (const ca of ['ca', 'other-ca'])
    openssl(dir, [
      'req',
      '-x509',
      ...key,
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=sched test ${ca}`,
    ]);
  fs.writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  const sign = (name: string, subject: string, extensions: string[]) => {
    openssl(dir, ['req', ...key, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      ...extensions,
    ]);
    fs.chmodSync(path.join(dir, `${name}.key`), 0o600);
  };
  sign('server', '/CN=localhost', ['-extfile', 'server.ext']);
  sign('client', `/CN=${CERT_USER}`, []);
  const file = (name: string) => path.join(dir, name);
  return {
    ca: file('ca.pem'),
    otherCa: file('other-ca.pem'),
    clientCert: file('client.crt'),
    clientKey: file('client.key'),
    serverCert: file('server.crt'),
    serverKey: file('server.key'),
  };
}

/**
 * TLS on, the server's certificate and key, the CA it checks client certificates against, and pg_hba
 * lines that accept TLS connections only (hostssl): a plain connection is refused, and CERT_USER must
 * also show a certificate the CA signed that names it.
 */
function serveTls(certs: Certificates) {
  return (dataDir: string, owner: { uid: number; gid: number }) => {
    for (const [from, to] of [
      [certs.serverCert, 'server.crt'],
      [certs.serverKey, 'server.key'],
      [certs.ca, 'root.crt'],
    ] as const) {
      fs.copyFileSync(from, path.join(dataDir, to));
      fs.chownSync(path.join(dataDir, to), owner.uid, owner.gid);
      fs.chmodSync(path.join(dataDir, to), 0o600);
    }
    fs.appendFileSync(
      path.join(dataDir, 'postgresql.conf'),
      "\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\nssl_ca_file = 'root.crt'\n",
    );
    fs.writeFileSync(
      path.join(dataDir, 'pg_hba.conf'),
      [
        `hostssl all ${CERT_USER} 127.0.0.1/32 password clientcert=verify-full`,
        'hostssl all all 127.0.0.1/32 password',
        '',
      ].join('\n'),
    );
  };
}

describe('a PostgreSQL store over TLS', () => {
  const daemons = useDaemons(afterEach);
  let dir: string;
  let certs: Certificates;
  let server: RunningServer;
  let admin: pg.Client;
  let databases = 0;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-pg-tls-'));
    certs = makeCertificates(dir);
    // A server of this file's own: the run's shared one has no TLS.
    server = await startEmbeddedPostgres({ prepare: serveTls(certs) });
    admin = new pg.Client({ connectionString: server.url, ssl: { ca: fs.readFileSync(certs.ca, 'utf8') } });
    await admin.connect();
    await admin.query(`CREATE ROLE ${CERT_USER} LOGIN PASSWORD '${CERT_PASSWORD}'`);
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A new empty database, owned by `owner`; its URL for `user` with the given query string. */
  async function database(query: string, owner = 'postgres', password?: string): Promise<string> {
    const name = `sched_tls_${(databases += 1)}`;
    await admin.query(`CREATE DATABASE ${name} OWNER ${owner}`);
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    if (owner !== 'postgres') [url.username, url.password] = [owner, password ?? ''];
    return `${url.toString()}${query}`;
  }

  /** How many of the daemon's connections to `name` are encrypted, and how many are not. */
  async function daemonConnections(name: string): Promise<{ tls: number; plain: number }> {
    const { rows } = await admin.query<{ ssl: boolean; n: number }>(
      `SELECT s.ssl, count(*)::int AS n FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid
        WHERE a.datname = $1 AND a.application_name LIKE 'sched%' GROUP BY s.ssl`,
      [name],
    );
    return {
      tls: rows.find((row) => row.ssl)?.n ?? 0,
      plain: rows.find((row) => !row.ssl)?.n ?? 0,
    };
  }

  async function tableCount(name: string): Promise<number> {
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    const client = new pg.Client({
      connectionString: url.toString(),
      ssl: { ca: fs.readFileSync(certs.ca, 'utf8') },
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
      );
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  }

  /** Adds a job that runs every second and waits until one of its runs has succeeded. */
  async function firesAJob(home: string): Promise<void> {
    const added = await sched(home, ['add', 'beat', '--every', '1s', '--shell', 'true']);
    expect(added.code, added.stderr).toBe(0);
    await waitFor(async () => {
      const history = await sched(home, ['history', 'beat', '--json']);
      return history.json?.items?.some((run: { state: string }) => run.state === 'succeeded');
    }, 30_000);
  }

  /** `sched daemon run` that is expected to give up: its exit code and everything it printed. */
  async function failedStart(home: string, store: string, env: Record<string, string> = {}) {
    const result = await sched(home, ['daemon', 'run', '--store', store], { env, timeoutMs: 45_000 });
    return { code: result.code, output: `${result.stdout}${result.stderr}` };
  }

  it('a daemon whose store URL says sslmode=verify-full and sslrootcert connects over TLS and fires jobs', async () => {
    const store = await database(`?sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.ca)}`);
    const home = daemons.home();

    await daemons.start(home, ['--store', store]);

    await firesAJob(home);
    const connections = await daemonConnections(new URL(store).pathname.slice(1));
    expect(connections.tls).toBeGreaterThan(0);
    expect(connections.plain).toBe(0);
  });

  it('the pg_ca_file setting stands in for sslrootcert, and alone means verify-full', async () => {
    const store = await database('');
    const home = daemons.home();

    await daemons.start(home, ['--store', store], { SCHED_PG_CA_FILE: certs.ca });

    await firesAJob(home);
    expect((await daemonConnections(new URL(store).pathname.slice(1))).tls).toBeGreaterThan(0);
  });

  it('sslrootcert in the URL wins over pg_ca_file', async () => {
    const store = await database(`?sslrootcert=${encodeURIComponent(certs.ca)}`);
    const home = daemons.home();

    await daemons.start(home, ['--store', store], { SCHED_PG_CA_FILE: certs.otherCa });

    await firesAJob(home);
  });

  it('a server whose certificate another CA signed is refused with a clear error, and nothing is started', async () => {
    const store = await database(`?sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.otherCa)}`);
    const home = daemons.home();

    const { code, output } = await failedStart(home, store);

    expect(code).toBe(7);
    expect(output).toContain('Cannot use the PostgreSQL store');
    expect(output).toContain('sslrootcert (or pg_ca_file) names the CA');
    expect(output).not.toMatch(/\n\s+at /);
    expect(output).not.toContain(new URL(server.url).password);
    expect(await tableCount(new URL(store).pathname.slice(1))).toBe(0);
    expect(fs.existsSync(path.join(home, 'sched.sock'))).toBe(false);
  });

  it('a plain connection is refused by this server, so the TLS tests above used TLS', async () => {
    const store = await database('?sslmode=disable');

    const { code, output } = await failedStart(daemons.home(), store);

    expect(code).toBe(7);
    expect(output).toMatch(/no pg_hba\.conf entry .*no encryption/);
    expect(output).toContain('add sslmode=verify-full and sslrootcert');
  });

  it('a role that must show a client certificate connects with pg_cert_file and pg_key_file', async () => {
    const store = await database('?sslmode=verify-full', CERT_USER, CERT_PASSWORD);
    const files = { SCHED_PG_CA_FILE: certs.ca, SCHED_PG_CERT_FILE: certs.clientCert };
    const refused = await failedStart(daemons.home(), store, files);
    expect(refused.output).toContain('both its certificate and its key');

    const withoutCertificate = await failedStart(daemons.home(), store, { SCHED_PG_CA_FILE: certs.ca });
    expect(withoutCertificate.code).toBe(7);
    expect(withoutCertificate.output).toContain('connection requires a valid client certificate');
    expect(withoutCertificate.output).toContain('set pg_cert_file and pg_key_file');

    const home = daemons.home();
    await daemons.start(home, ['--store', store], { ...files, SCHED_PG_KEY_FILE: certs.clientKey });
    await firesAJob(home);
  });

  it('a client key that others can read is refused, as libpq refuses it, and nothing is started', async () => {
    const store = await database('?sslmode=verify-full', CERT_USER, CERT_PASSWORD);
    const looseKey = path.join(dir, 'loose-client.key');
    fs.copyFileSync(certs.clientKey, looseKey);
    fs.chmodSync(looseKey, 0o644);

    const { code, output } = await failedStart(daemons.home(), store, {
      SCHED_PG_CA_FILE: certs.ca,
      SCHED_PG_CERT_FILE: certs.clientCert,
      SCHED_PG_KEY_FILE: looseKey,
    });

    expect(code).not.toBe(0);
    expect(output).toContain(`The PostgreSQL client key file ${looseKey} is open to others (mode 0644)`);
    expect(output).toContain(`chmod 600 ${looseKey}`);
    expect(output).not.toMatch(/\n\s+at /);
    expect(await tableCount(new URL(store).pathname.slice(1))).toBe(0);
  });
});
