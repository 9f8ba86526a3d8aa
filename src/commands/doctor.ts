import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SchedCommand } from '../cli/base-command.js';
import { DaemonClient } from '../client/daemon-client.js';
import { hostDefaults, loadConfig } from '../config/load.js';
import { formatDuration } from '../core/duration.js';
import { isSchedError } from '../core/errors.js';
import { isValidTimezone, offsetAt } from '../core/schedule/timezone.js';
import type { DaemonStatus } from '../ipc/protocol.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'unknown';

export interface Check {
  name: 'config' | 'daemon' | 'socket' | 'store' | 'clock' | 'timezones';
  status: CheckStatus;
  message: string;
  /** What to do about it, for warn and fail. */
  fix: string | null;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

const STATUS_TIMEOUT_MS = 5_000;
const START_FIX =
  'Start it: `sched daemon run`, or `systemctl --user start sched` once `sched daemon install` wrote a unit.';

export default class Doctor extends SchedCommand {
  static override summary = 'Check that sched can work here, and say what to fix.';
  static override description =
    'Checks the config, the daemon (does it answer, which version), its socket (mode 0600, owned by you), the ' +
    'store (exists, writable, passes SQLite quick_check), clock synchronisation (timedatectl) and time zone ' +
    'data. Exits 0 when nothing fails, 7 when no daemon answers, and 4 when another check fails.';

  static override examples = [
    { description: 'Check this host.', command: '<%= config.bin %> <%= command.id %>' },
    { description: 'For monitoring.', command: '<%= config.bin %> <%= command.id %> --json' },
  ];

  async run(): Promise<DoctorReport> {
    await this.parse(Doctor);
    const checks: Check[] = [];
    let socket = hostDefaults(process.env).socket;
    let store = hostDefaults(process.env).store;
    try {
      const config = loadConfig(process.env);
      ({ socket, store } = config);
      checks.push(
        pass('config', config.file === null ? 'no config file; defaults and environment' : config.file),
      );
    } catch (error) {
      if (!isSchedError(error)) throw error;
      checks.push(failure('config', error.message, error.hint ?? 'Fix the config file.'));
    }
    const status = await daemonStatus(socket);
    checks.push(this.daemonCheck(status));
    checks.push(socketCheck(socket));
    checks.push(
      await storeCheck(typeof status === 'string' ? store : status.store, typeof status !== 'string'),
    );
    checks.push(await clockCheck());
    checks.push(timezoneCheck());
    const report: DoctorReport = { ok: checks.every((check) => check.status !== 'fail'), checks };

    if (!this.jsonEnabled()) {
      for (const check of checks) {
        this.log(`${LABELS[check.status]}  ${check.name.padEnd(9)} ${check.message}`);
        if (check.fix !== null) this.log(`${' '.repeat(16)}fix: ${check.fix}`);
      }
      const failed = checks.filter((check) => check.status === 'fail').length;
      this.log(
        failed === 0 ? '\nNo problems found.' : `\n${failed} problem${failed === 1 ? '' : 's'} found.`,
      );
    }
    if (report.ok) return report;
    if (this.jsonEnabled()) this.logJson(report);
    this.exit(checks.find((check) => check.name === 'daemon')?.status === 'fail' ? 7 : 4);
  }

  private daemonCheck(status: DaemonStatus | string): Check {
    if (typeof status === 'string') return failure('daemon', status, START_FIX);
    const running = `running, pid ${status.pid}, version ${status.version}, up ${formatDuration(status.now - status.startedAt)}`;
    if (status.version !== this.config.version)
      return warning(
        'daemon',
        `${running}; this CLI is ${this.config.version}`,
        'Restart the daemon to run this version.',
      );
    return pass('daemon', running);
  }
}

const LABELS: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', unknown: '??  ' };

const pass = (name: Check['name'], message: string): Check => ({ name, status: 'ok', message, fix: null });
const warning = (name: Check['name'], message: string, fix: string): Check => ({
  name,
  status: 'warn',
  message,
  fix,
});
const failure = (name: Check['name'], message: string, fix: string): Check => ({
  name,
  status: 'fail',
  message,
  fix,
});

/** The daemon's status, or why there is none. */
async function daemonStatus(socket: string): Promise<DaemonStatus | string> {
  let client: DaemonClient | undefined;
  try {
    client = await DaemonClient.connect(socket);
    const timeout = new Promise<string>((resolve) =>
      setTimeout(
        () => resolve(`no answer on ${socket} within ${formatDuration(STATUS_TIMEOUT_MS)}`),
        STATUS_TIMEOUT_MS,
      ).unref(),
    );
    return await Promise.race([client.call('daemon.status', {}), timeout]);
  } catch (error) {
    if (!isSchedError(error)) throw error;
    return error.message.replace(/\.$/, '');
  } finally {
    client?.close();
  }
}

function socketCheck(socket: string): Check {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socket);
  } catch {
    return failure('socket', `nothing at ${socket}`, START_FIX);
  }
  if (!stat.isSocket())
    return failure('socket', `${socket} is not a socket`, `Remove it, then start the daemon. ${START_FIX}`);
  const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
  const uid = process.getuid?.() ?? stat.uid;
  if ((stat.mode & 0o077) !== 0)
    return failure(
      'socket',
      `${socket} has mode ${mode}, so other users can send the daemon requests`,
      `chmod 600 ${socket} (the daemon sets 0600 when it starts; restart it).`,
    );
  if (stat.uid !== uid && uid !== 0)
    return failure(
      'socket',
      `${socket} belongs to uid ${stat.uid}, not to you (uid ${uid})`,
      'Run sched as that user, or point SCHED_SOCKET (or socket in config.toml) at your own daemon.',
    );
  return pass('socket', `${socket}, mode ${mode}, owner uid ${stat.uid}`);
}

async function storeCheck(store: string, daemonUp: boolean): Promise<Check> {
  if (!store.startsWith('sqlite:'))
    return daemonUp
      ? pass('store', `${store.replace(/\/\/[^@/]*@/, '//***@')}, in use by the daemon`)
      : {
          name: 'store',
          status: 'unknown',
          message: `${store.replace(/\/\/[^@/]*@/, '//***@')}: only the daemon checks this store`,
          fix: null,
        };
  const file = store.replace(/^sqlite:(\/\/)?/, '');
  if (!fs.existsSync(file))
    return failure('store', `no database at ${file}`, `The daemon creates it when it starts. ${START_FIX}`);
  try {
    fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    // WAL mode writes its -wal and -shm files next to the database.
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
  } catch {
    return failure(
      'store',
      `${file} (or its directory) is not writable by you`,
      `Give the daemon's user write access to ${path.dirname(file)}.`,
    );
  }
  try {
    const { default: Database } = await import('better-sqlite3');
    const database = new Database(file, { readonly: true, fileMustExist: true, timeout: 2_000 });
    try {
      const result = database.pragma('quick_check', { simple: true });
      if (result !== 'ok')
        return failure(
          'store',
          `${file} fails SQLite's quick_check: ${String(result)}`,
          'Stop the daemon and restore the database from a backup.',
        );
    } finally {
      database.close();
    }
  } catch (error) {
    return failure(
      'store',
      `cannot read ${file}: ${(error as Error).message}`,
      'Check that it is a sched database and that you can read it.',
    );
  }
  return pass('store', `${file}, writable, quick_check ok`);
}

function clockCheck(): Promise<Check> {
  return new Promise((resolve) => {
    execFile(
      'timedatectl',
      ['show', '-p', 'NTPSynchronized', '--value'],
      { timeout: 5_000 },
      (error, stdout) => {
        const answer = stdout.trim();
        if (error || (answer !== 'yes' && answer !== 'no'))
          return resolve({
            name: 'clock',
            status: 'unknown',
            message: 'cannot tell whether the clock is synchronised (no timedatectl, or no systemd)',
            fix: null,
          });
        if (answer === 'yes') return resolve(pass('clock', 'synchronised (NTP)'));
        resolve(
          warning(
            'clock',
            'not synchronised: jobs fire by this host’s clock, however wrong it is',
            'Turn on time sync: timedatectl set-ntp true (or run chrony or ntpd).',
          ),
        );
      },
    );
  });
}

function timezoneCheck(): Check {
  const version = process.versions.tz ?? 'unknown';
  const fix = 'Upgrade Node.js; its bundled ICU carries the time zone database.';
  if (!isValidTimezone('America/New_York'))
    return failure('timezones', 'this Node.js knows no time zones', fix);
  const july = Date.UTC(2024, 6, 1);
  // Mexico dropped daylight saving in October 2022 (tzdata 2022f): older data still moves its clocks.
  if (
    offsetAt('America/New_York', july) !== -4 * 3_600_000 ||
    offsetAt('America/Mexico_City', july) !== -6 * 3_600_000
  )
    return failure('timezones', `the time zone data (tz ${version}) is out of date`, fix);
  return pass('timezones', `tz ${version}, recent rules known`);
}
