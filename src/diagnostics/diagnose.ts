import { hostDefaults, loadConfig } from '../config/load.js';
import { isSchedError } from '../core/errors.js';
import { backupCheck } from './backup-check.js';
import { failure, pass, type Check, type DoctorReport } from './check.js';
import { clockCheck } from './clock-check.js';
import { daemonCheck, daemonStatus } from './daemon-check.js';
import { socketCheck } from './socket-check.js';
import { storeCheck } from './store-check.js';
import { timezoneCheck } from './timezone-check.js';
import { transportCheck } from './transport-check.js';
import { NO_TLS_FILES } from '../store/postgres/tls-plan.js';

/**
 * What `sched doctor` checks on this host, in order. It lives outside src/commands because it reads
 * files, the store's database and timedatectl, which a command does not reach by itself.
 */
export async function diagnose(
  env: Readonly<Record<string, string | undefined>>,
  cliVersion: string,
): Promise<DoctorReport> {
  const checks: Check[] = [];
  let { socket, store } = hostDefaults(env);
  let backup: Check | null = null;
  let socketMode: number | undefined;
  let postgresTls = NO_TLS_FILES;
  try {
    const config = loadConfig(env);
    ({ socket, store, socketMode, postgresTls } = config);
    backup = backupCheck(config.backup, Date.now());
    checks.push(
      pass('config', config.file === null ? 'no config file; defaults and environment' : config.file),
    );
  } catch (error) {
    if (!isSchedError(error)) throw error;
    checks.push(failure('config', error.message, error.hint ?? 'Fix the config file.'));
  }
  const status = await daemonStatus(socket);
  checks.push(daemonCheck(status, cliVersion));
  checks.push(socketCheck(socket, socketMode));
  const storeInUse = typeof status === 'string' ? store : status.store;
  checks.push(await storeCheck(storeInUse, typeof status !== 'string'));
  const transport = transportCheck(storeInUse, postgresTls);
  if (transport !== null) checks.push(transport);
  checks.push(await clockCheck());
  checks.push(timezoneCheck());
  if (backup !== null) checks.push(backup);
  return { ok: checks.every((check) => check.status !== 'fail'), checks };
}
