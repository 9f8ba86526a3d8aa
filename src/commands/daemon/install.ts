import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { isStoreUrl } from '../../config/keys.js';
import {
  enableCommands,
  environmentFileLine,
  renderSystemdUnit,
  SYSTEM_HOME,
  SYSTEM_SOCKET,
  type UnitScope,
} from '../../config/systemd-unit.js';
import { formatDuration, parseDuration } from '../../core/duration.js';
import { SchedError } from '../../core/errors.js';

export interface DaemonInstallResult {
  scope: UnitScope;
  /** Where the unit is (or would be) written. */
  path: string;
  unit: string;
  /** False with --print, or when the same unit was already there. */
  written: boolean;
  /**
   * Where the store URL went when it carries a password (mode 0600, read through EnvironmentFile=), so the
   * unit, which anyone may read, does not hold it; null otherwise. Written unless --print.
   */
  environmentFile: string | null;
  /** Run these to start it now and at every boot (or login). */
  commands: string[];
}

// Settings the daemon reads from the environment that a unit should keep, since systemd starts it with
// an almost empty one.
const CARRIED_ENV = ['SCHED_HOME', 'SCHED_SOCKET', 'SCHED_CONFIG'] as const;

export default class DaemonInstall extends SchedCommand {
  static override localOnly = 'writes a systemd unit on this host';
  static override summary = 'Write a systemd unit that runs the daemon, and say how to enable it.';
  static override description =
    'A --user unit goes to ~/.config/systemd/user/sched.service and runs while you are logged in (or always, ' +
    'with lingering); a --system unit goes to /etc/systemd/system/sched.service and runs as root with its ' +
    `database in ${SYSTEM_HOME} and its socket at ${SYSTEM_SOCKET}. The unit runs this node and this copy of ` +
    'sched by absolute path, restarts the daemon when it fails, and lets running jobs finish within --grace ' +
    'when it stops. SCHED_HOME, SCHED_SOCKET and SCHED_CONFIG, when set, are written into a user unit ' +
    '(SCHED_CONFIG only into a system unit). A --store URL with a password goes into sched.env beside the ' +
    'unit (mode 0600) as SCHED_STORE, which the unit reads with EnvironmentFile=, never into the unit.';

  static override examples = [
    { description: 'Install a user unit.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'See the system unit without writing it.',
      command: '<%= config.bin %> <%= command.id %> --system --print',
    },
    {
      description: 'A system daemon on a PostgreSQL store, with a longer grace period.',
      command:
        'sudo <%= config.bin %> <%= command.id %> --system --store postgres://sched@db/sched --grace 2m',
    },
  ];

  static override flags = {
    user: Flags.boolean({ summary: 'Install for your user manager (the default).', exclusive: ['system'] }),
    system: Flags.boolean({ summary: 'Install for the system manager (needs root).', exclusive: ['user'] }),
    store: Flags.string({
      summary: 'Where the daemon keeps jobs: sqlite:PATH or a postgres:// URL.',
      helpValue: 'URL',
    }),
    grace: Flags.string({
      summary: 'How long running jobs may finish when the service stops.',
      helpValue: 'DURATION',
      default: '30s',
    }),
    print: Flags.boolean({ summary: 'Print the unit instead of writing it.' }),
    force: Flags.boolean({ summary: 'Replace a different sched.service that is already there.' }),
  };

  async run(): Promise<DaemonInstallResult> {
    const { flags } = await this.parse(DaemonInstall);
    const scope: UnitScope = flags.system ? 'system' : 'user';
    const graceMs = parseDuration(flags.grace, '--grace');
    if (flags.store !== undefined && !isStoreUrl(flags.store))
      throw new SchedError(
        'VALIDATION_FAILED',
        `--store must be a store URL (got ${JSON.stringify(flags.store)}).`,
        {
          hint: 'Give sqlite:/path/to/sched.db or postgres://user@host/database.',
        },
      );
    const target = path.join(unitDirectory(scope, process.env), 'sched.service');
    const secretStore = flags.store !== undefined && hasPassword(flags.store) ? flags.store : undefined;
    const environmentFile = secretStore === undefined ? null : path.join(path.dirname(target), 'sched.env');
    const unit = renderSystemdUnit({
      scope,
      nodePath: process.execPath,
      schedBin: path.join(this.config.root, 'bin', 'run.js'),
      grace: formatDuration(graceMs),
      graceMs,
      environment: unitEnvironment(scope, process.env),
      daemonArgs: flags.store === undefined || secretStore !== undefined ? [] : ['--store', flags.store],
      environmentFile: environmentFile ?? undefined,
    });
    const commands = enableCommands(scope, os.userInfo().username);
    const written = flags.print ? false : writeUnit(target, unit, flags.force);
    if (environmentFile !== null && secretStore !== undefined && !flags.print)
      writeSecretEnvironment(environmentFile, environmentFileLine('SCHED_STORE', secretStore));

    if (!this.jsonEnabled()) {
      if (flags.print) {
        process.stdout.write(unit);
        if (environmentFile !== null)
          process.stderr.write(
            `The store URL has a password, so it is not in the unit: put SCHED_STORE in ${environmentFile} (mode 0600), or run without --print to write it there.\n`,
          );
      } else {
        this.log(written ? `Wrote ${target}.` : `${target} is already up to date.`);
        if (environmentFile !== null)
          this.log(
            `Wrote the store URL, with its password, to ${environmentFile} (mode 0600, SCHED_STORE), which the unit reads with EnvironmentFile=.`,
          );
        this.log(`Enable and start it:\n\n${commands.map((command) => `  ${command}`).join('\n')}`);
        if (scope === 'system' && process.env.SCHED_SOCKET === undefined)
          this.log(
            `\nThe CLI finds this daemon at ${SYSTEM_SOCKET} when /etc/sched/config.toml says socket = "${SYSTEM_SOCKET}".`,
          );
      }
    }
    return { scope, path: target, unit, written, environmentFile, commands };
  }
}

function unitDirectory(scope: UnitScope, env: NodeJS.ProcessEnv): string {
  // For tests and packaging: write somewhere other than the live systemd directories.
  if (env.SCHED_SYSTEMD_DIR) return path.resolve(env.SCHED_SYSTEMD_DIR);
  if (scope === 'system') return '/etc/systemd/system';
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'systemd', 'user');
}

function unitEnvironment(scope: UnitScope, env: NodeJS.ProcessEnv): Record<string, string> {
  // A system daemon's files have fixed homes (the ones systemd creates for it), whatever this shell says.
  const environment: Record<string, string> =
    scope === 'system' ? { SCHED_HOME: SYSTEM_HOME, SCHED_SOCKET: SYSTEM_SOCKET } : {};
  for (const name of scope === 'system' ? (['SCHED_CONFIG'] as const) : CARRIED_ENV) {
    const value = env[name];
    if (value) environment[name] = path.resolve(value);
  }
  return environment;
}

function hasPassword(store: string): boolean {
  try {
    return new URL(store).password !== '';
  } catch {
    return false;
  }
}

/**
 * Readable by its owner only from the first byte: a new file made 0600 and renamed over the old one, since
 * rewriting an existing file would keep whatever mode it had.
 */
function writeSecretEnvironment(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const draft = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(draft, content, { mode: 0o600, flag: 'wx' });
  fs.renameSync(draft, file);
}

/** Writes the unit unless the same one is there; refuses to replace a different one without --force. */
function writeUnit(target: string, unit: string, force: boolean): boolean {
  let current: string | null = null;
  try {
    current = fs.readFileSync(target, 'utf8');
  } catch {
    current = null;
  }
  if (current === unit) return false;
  if (current !== null && !force)
    throw new SchedError(
      'INVALID_STATE',
      `${target} already exists and differs from the unit sched would write.`,
      {
        hint: 'See the new unit with --print; replace the old one with --force.',
        details: { path: target },
      },
    );
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, unit, { mode: 0o644 });
  return true;
}
