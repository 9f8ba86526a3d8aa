import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { isRoot, makeTestAccounts, reachableSocketPath, type TestAccounts } from './os-users.js';
import { useDaemons, type RunningDaemon } from './sched-harness.js';

export interface MultiUserDaemonOptions {
  accounts: TestAccounts;
  /** The group the socket is opened to (0660); one of `accounts.groups`. */
  socketGroup: string;
  /** config.toml lines after the socket settings, such as `[access]` and its lists. */
  config: readonly string[];
  /** More flags of `sched daemon run`. */
  args?: string[];
}

/**
 * For one test file run as root: its real users and groups, and a daemon that root runs for them on a
 * socket they can reach, started before the file's cases and removed after them. Without root nothing
 * is made (the cases then call onlyRootMakesOtherUsers).
 */
export function useMultiUserDaemon(options: MultiUserDaemonOptions) {
  const { home, start } = useDaemons(afterAll);
  const cleanups: Array<() => void> = [];
  const shared = { socketPath: '', home: '', daemon: null as RunningDaemon | null };

  beforeAll(async () => {
    if (!isRoot) return;
    cleanups.push(makeTestAccounts(options.accounts));
    const socket = reachableSocketPath();
    cleanups.push(socket.remove);
    shared.socketPath = socket.socketPath;
    shared.home = home();
    fs.writeFileSync(
      path.join(shared.home, 'config.toml'),
      [
        `socket = "${shared.socketPath}"`,
        'socket_mode = "0660"',
        `socket_group = "${options.socketGroup}"`,
        ...options.config,
      ].join('\n'),
    );
    shared.daemon = await start(shared.home, options.args);
  }, 120_000);

  afterAll(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  return shared;
}
