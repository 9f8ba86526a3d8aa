import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { isRoot, type testAccounts } from './os-users.js';
import { useDaemons } from './sched-harness.js';

/** A daemon other users reach: its home, and its socket (0660, in the socket group). */
export interface SharedDaemon {
  socketPath: string;
  daemonHome: string;
}

export interface SharedDaemonOptions {
  accounts: ReturnType<typeof testAccounts>;
  socketGroup: string;
  /** Who owns the folder above the socket's (the daemon's user must be able to make the socket's in it); null: root. */
  socketOwner: string | null;
  /** The lines of `[access]`, such as `operators = ["bob"]`. */
  access: string[];
  start: (daemonHome: string, daemons: ReturnType<typeof useDaemons>) => Promise<unknown>;
}

/**
 * For one describe, as root: its test accounts, and a daemon (started by `start`) with `[access]` whose
 * socket lies in a folder others may pass through; all removed afterwards. Without root it does nothing.
 */
export function useSharedDaemon(options: SharedDaemonOptions): SharedDaemon {
  const daemons = useDaemons(afterAll);
  const shared: SharedDaemon = { socketPath: '', daemonHome: '' };
  let root = '';
  beforeAll(async () => {
    if (!isRoot) return;
    options.accounts.make();
    // Others must pass through the folder above the socket's: the daemon makes the socket's own folder.
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-shared-'));
    fs.chmodSync(root, 0o711);
    if (options.socketOwner !== null) execFileSync('chown', [options.socketOwner, root]);
    shared.socketPath = path.join(root, 'run', 'sched.sock');
    shared.daemonHome = daemons.home();
    fs.writeFileSync(
      path.join(shared.daemonHome, 'config.toml'),
      [
        `socket = "${shared.socketPath}"`,
        'socket_mode = "0660"',
        `socket_group = "${options.socketGroup}"`,
        '[access]',
        ...options.access,
      ].join('\n'),
    );
    await options.start(shared.daemonHome, daemons);
  }, 120_000);
  afterAll(() => {
    if (root !== '') fs.rmSync(root, { recursive: true, force: true });
    options.accounts.remove();
  });
  return shared;
}
