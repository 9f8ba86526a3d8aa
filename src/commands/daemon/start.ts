import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { SchedCommand } from '../../cli/base-command.js';
import { DaemonClient } from '../../client/daemon-client.js';
import { configFlagValues } from '../../config/flags.js';
import { loadConfig } from '../../config/load.js';
import { formatDuration, parseDuration } from '../../core/duration.js';
import { SchedError, type ErrorCode } from '../../core/errors.js';
import type { DaemonStatus } from '../../ipc/protocol.js';
import { resolveLocations } from '../../ipc/locations.js';
import DaemonRun from './run.js';

export interface DaemonStartResult {
  started: true;
  pid: number;
  socket: string;
  /** Where the daemon's output goes: its JSON log lines and anything it prints. */
  log: string;
}

const LOG_TAIL_LINES = 20;

// The exit codes of the user errors a starting daemon can make (bad flags; another daemon holds the home),
// so `start` exits as `run` would have.
const CHILD_EXIT_ERRORS: Record<number, ErrorCode> = { 2: 'VALIDATION_FAILED', 4: 'DAEMON_ALREADY_RUNNING' };

export default class DaemonStart extends SchedCommand {
  static override localOnly = 'starts a daemon process on this host';
  static override summary = 'Start the daemon in the background, and wait until it answers.';
  static override description =
    'Runs `sched daemon run` with the same flags as a background process, its output appended to ' +
    'daemon.log in SCHED_HOME (or in the data directory, ~/.local/share/sched, without one), and returns ' +
    'once the daemon answers on its socket. Stop it with `sched daemon stop`. Under systemd, use ' +
    '`sched daemon install` instead.';

  static override examples = [
    { description: 'Start the daemon.', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Start one with its own home and a longer grace period.',
      command: 'SCHED_HOME=/srv/sched <%= config.bin %> <%= command.id %> --grace 2m',
    },
  ];

  static override flags = {
    ...DaemonRun.flags,
    wait: Flags.string({
      summary: 'How long to wait for the daemon to answer before giving up.',
      helpValue: 'DURATION',
      default: '15s',
    }),
  };

  async run(): Promise<DaemonStartResult> {
    const { flags } = await this.parse(DaemonStart);
    const waitMs = parseDuration(flags.wait, '--wait');
    const config = loadConfig(process.env, configFlagValues(flags));
    const running = await answeringDaemon(config.socket);
    if (running !== null) {
      throw new SchedError(
        'DAEMON_ALREADY_RUNNING',
        `A sched daemon (pid ${running.pid}) is already running for ${running.home}, on ${config.socket}.`,
        {
          hint: 'Use it as it is, or stop it first with `sched daemon stop`.',
          details: { pid: running.pid, socket: config.socket },
        },
      );
    }

    const { home } = resolveLocations(process.env);
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    const log = path.join(home, 'daemon.log');
    const fd = fs.openSync(log, 'a', 0o600);
    const logStart = fs.fstatSync(fd).size;
    const child = spawn(
      process.execPath,
      [path.join(this.config.root, 'bin', 'run.js'), 'daemon', 'run', ...runArgv(flags)],
      { detached: true, stdio: ['ignore', fd, fd], env: process.env },
    );
    fs.closeSync(fd);
    let ended: { code: number | null; signal: string | null } | undefined;
    child.once('exit', (code, signal) => (ended = { code, signal }));
    child.unref();

    const deadline = Date.now() + waitMs;
    for (;;) {
      const status = await answeringDaemon(config.socket);
      if (status !== null) break;
      if (ended !== undefined) {
        throw diedBeforeAnswering(
          CHILD_EXIT_ERRORS[ended.code ?? -1] ?? 'DAEMON_UNAVAILABLE',
          `exited (${ended.signal ?? `code ${ended.code}`}) before it answered`,
          { log, logStart },
          'Fix what the log says, then start it again.',
        );
      }
      if (Date.now() > deadline) {
        throw diedBeforeAnswering(
          'DAEMON_UNAVAILABLE',
          `(pid ${child.pid}) did not answer on ${config.socket} within ${formatDuration(waitMs)}`,
          { log, logStart },
          `It may still be starting: check with \`sched daemon status\`, or wait longer with --wait. Stop it with kill ${child.pid}.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const pid = child.pid!;
    if (!this.jsonEnabled()) {
      this.log(`Started the daemon (pid ${pid}).`);
      this.log(`Socket:  ${config.socket}`);
      this.log(`Log:     ${log}`);
      this.log(`Stop it with \`${this.config.bin} daemon stop\`.`);
    }
    return { started: true, pid, socket: config.socket, log };
  }
}

/** The status of the daemon on `socket`, or null when none answers there. */
async function answeringDaemon(socket: string): Promise<DaemonStatus | null> {
  let client: DaemonClient | null = null;
  try {
    client = await DaemonClient.connect(socket);
    return await client.call('daemon.status', {});
  } catch {
    return null;
  } finally {
    client?.close();
  }
}

/** The `daemon run` flags this command was given, spelled `--name=value` so no value is read as a flag. */
function runArgv(flags: Record<string, unknown>): string[] {
  const argv: string[] = [];
  for (const [name, value] of Object.entries(flags)) {
    if (!(name in DaemonRun.flags) || value === undefined || value === false) continue;
    if (value === true) argv.push(`--${name}`);
    else for (const each of [value].flat()) argv.push(`--${name}=${String(each)}`);
  }
  return argv;
}

function diedBeforeAnswering(
  code: ErrorCode,
  what: string,
  { log, logStart }: { log: string; logStart: number },
  hint: string,
): SchedError {
  // Only what this start appended: the log keeps the output of earlier daemons too.
  const written = fs.readFileSync(log).subarray(logStart).toString('utf8');
  const tail = written.trimEnd().split('\n').slice(-LOG_TAIL_LINES).join('\n');
  return new SchedError(code, `The daemon ${what}. The end of ${log}:\n${tail || '(nothing)'}`, {
    hint,
    details: { log },
  });
}
