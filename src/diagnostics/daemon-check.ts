import { DaemonClient } from '../client/daemon-client.js';
import { formatDuration } from '../core/duration.js';
import { isSchedError } from '../core/errors.js';
import type { DaemonStatus } from '../ipc/protocol.js';
import { failure, pass, START_FIX, warning, type Check } from './check.js';

const STATUS_TIMEOUT_MS = 5_000;

/** The daemon's status, or why there is none. */
export async function daemonStatus(socket: string): Promise<DaemonStatus | string> {
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

export function daemonCheck(status: DaemonStatus | string, cliVersion: string): Check {
  if (typeof status === 'string') return failure('daemon', status, START_FIX);
  const running = `running, pid ${status.pid}, version ${status.version}, up ${formatDuration(status.now - status.startedAt)}`;
  if (status.version !== cliVersion)
    return warning(
      'daemon',
      `${running}; this CLI is ${cliVersion}`,
      'Restart the daemon to run this version.',
    );
  return pass('daemon', running);
}
