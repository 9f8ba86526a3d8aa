/** Which service manager runs the daemon: the user's (`systemctl --user`) or the system's. */
export type UnitScope = 'user' | 'system';

export interface UnitOptions {
  scope: UnitScope;
  /** Absolute path of the node binary (`process.execPath`). */
  nodePath: string;
  /** Absolute path of sched's bin/run.js. */
  schedBin: string;
  /** The daemon's --grace: systemd's stop timeout must outlast it. */
  grace: string;
  graceMs: number;
  /** Environment= lines, such as SCHED_HOME. */
  environment: Readonly<Record<string, string>>;
  /** More `daemon run` flags, such as ['--store', URL]. */
  daemonArgs: readonly string[];
  /** A file of secret settings (a store URL with its password) the unit reads, kept out of the unit itself. */
  environmentFile?: string;
}

/** Where a system daemon keeps its files; StateDirectory= and RuntimeDirectory= create them. */
export const SYSTEM_HOME = '/var/lib/sched';
export const SYSTEM_SOCKET = '/run/sched/sched.sock';

// After the grace period the daemon itself kills what is left and records it; systemd's SIGKILL is the
// backstop for a daemon that hangs, so it waits a little longer than the grace.
const STOP_MARGIN_SECONDS = 15;

/** The sched.service unit. Pure: the caller decides paths and where (if anywhere) to write it. */
export function renderSystemdUnit(options: UnitOptions): string {
  const system = options.scope === 'system';
  const execStart = [
    options.nodePath,
    options.schedBin,
    'daemon',
    'run',
    '--grace',
    options.grace,
    ...options.daemonArgs,
  ]
    .map((word) => quoteWord(word))
    .join(' ');
  const stopSeconds = Math.ceil(options.graceMs / 1000) + STOP_MARGIN_SECONDS;
  const lines = [
    `# Written by \`sched daemon install --${options.scope}\`; run it again after moving node or sched.`,
    '[Unit]',
    'Description=sched job scheduler daemon',
    ...(system ? ['Wants=network-online.target', 'After=network-online.target'] : []),
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${execStart}`,
    ...Object.entries(options.environment).map(
      ([name, value]) => `Environment=${quoteWord(`${name}=${value}`, { commandLine: false })}`,
    ),
    ...(options.environmentFile === undefined
      ? []
      : [
          '# SCHED_STORE, with its password, is in this file (mode 0600) rather than here, where anyone may read it.',
          `EnvironmentFile=${quoteWord(options.environmentFile, { commandLine: false })}`,
        ]),
    '# Logs are JSON lines on stdout, which journald keeps.',
    'SyslogIdentifier=sched',
    'Restart=on-failure',
    'RestartSec=5s',
    '# SIGTERM goes to the daemon alone: it stops firing and gives running jobs their grace period. Whatever',
    '# is left when TimeoutStopSec runs out is killed with the whole control group.',
    'KillMode=mixed',
    `TimeoutStopSec=${stopSeconds}s`,
    "# No UMask=: jobs get the manager's (0022 by default), as cron jobs do; the daemon makes its own files private.",
    '# Hardening. Jobs run inside this sandbox too: with NoNewPrivileges=yes they cannot use sudo or',
    '# other setuid programs. Paths stay writable (no ProtectSystem=), since jobs write where they need to.',
    'NoNewPrivileges=yes',
    'RestrictSUIDSGID=yes',
    'LockPersonality=yes',
    'RestrictRealtime=yes',
    'SystemCallArchitectures=native',
    ...(system
      ? [
          'ProtectKernelModules=yes',
          'ProtectKernelTunables=yes',
          'ProtectKernelLogs=yes',
          'ProtectControlGroups=yes',
          'ProtectHostname=yes',
          `# ${SYSTEM_HOME} (database) and ${SYSTEM_SOCKET.replace(/\/[^/]+$/, '')} (socket), for root only.`,
          'StateDirectory=sched',
          'StateDirectoryMode=0700',
          'RuntimeDirectory=sched',
          'RuntimeDirectoryMode=0700',
        ]
      : [
          // A user manager can only sandbox further through user namespaces, which would hide other
          // users' files from jobs; and the daemon keeps its files where the CLI looks for them.
          options.environment.SCHED_HOME === undefined
            ? '# The database is in $XDG_DATA_HOME/sched and the socket in $XDG_RUNTIME_DIR, where the CLI looks.'
            : '# The database and the socket are in SCHED_HOME; give the CLI the same SCHED_HOME.',
        ]),
    '',
    '[Install]',
    `WantedBy=${system ? 'multi-user.target' : 'default.target'}`,
    '',
  ];
  return lines.join('\n');
}

/**
 * One word of a unit file line. systemd splits on spaces, honours quotes and C escapes, expands `%`
 * specifiers everywhere and `$VAR` in command lines (not in Environment=), so those are escaped.
 */
export function quoteWord(word: string, { commandLine = true } = {}): string {
  const percent = word.replaceAll('%', '%%');
  const escaped = commandLine ? percent.replaceAll('$', '$$$$') : percent;
  if (/^[A-Za-z0-9_@%+=:,./$-]+$/.test(escaped)) return escaped;
  return `"${escaped.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/**
 * One `NAME=value` line of an environment file. systemd reads single quotes literally, so the value goes in
 * them unless it holds one; then in double quotes, where a backslash escapes `\\`, `"`, `$` and backquote.
 */
export function environmentFileLine(name: string, value: string): string {
  if (!value.includes("'")) return `${name}='${value}'\n`;
  return `${name}="${value.replace(/[\\"$`]/g, (char) => `\\${char}`)}"\n`;
}

/** The commands that put the unit to work, in order. */
export function enableCommands(scope: UnitScope, user: string): string[] {
  if (scope === 'system')
    return ['systemctl daemon-reload', 'systemctl enable --now sched.service', 'journalctl -u sched -f'];
  return [
    'systemctl --user daemon-reload',
    'systemctl --user enable --now sched.service',
    `loginctl enable-linger ${user}`,
    'journalctl --user -u sched -f',
  ];
}
