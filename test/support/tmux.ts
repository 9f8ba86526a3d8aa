import { execFile, execFileSync } from 'node:child_process';
import { childEnv } from './child-env.js';
import { waitFor } from './sched-harness.js';

/**
 * The dashboard's end-to-end tests need tmux. Without it they fail, never skip: a skipped test reads as
 * green in CI, and .ci/run installs tmux on a fresh machine.
 */
function requireTmux(): void {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore', env: childEnv() });
  } catch {
    throw new Error(
      'tmux is not installed (or not on PATH): the tests of sched in a real terminal need it. ' +
        'Install it (apt-get install tmux, brew install tmux) and run the tests again.',
    );
  }
}

/**
 * A tmux server of our own (its own socket), so the test never touches anyone's sessions, and a session
 * in it running a plain shell: sched is started from that shell like a person would, in a real terminal
 * (so the dashboard's raw mode, or anything that would prompt, behaves as it does for people).
 */
export class Tmux {
  readonly socket = `sched-e2e-${process.pid}-${Date.now()}`;
  readonly session = 'sched';

  run(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) =>
      execFile(
        'tmux',
        ['-L', this.socket, '-f', '/dev/null', ...args],
        // The tmux server, and so the shell in its session, gets the allow-listed environment only.
        { env: childEnv() },
        (error, stdout, stderr) =>
          error ? reject(new Error(`tmux ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout),
      ),
    );
  }

  start(columns: number, rows: number, env: Record<string, string>): Promise<string> {
    requireTmux();
    const shell = ['env', ...Object.entries(env).map(([key, value]) => `${key}=${value}`), 'sh'];
    return this.run(
      'new-session',
      '-d',
      '-x',
      String(columns),
      '-y',
      String(rows),
      '-s',
      this.session,
      ...shell,
    );
  }

  type(line: string): Promise<string> {
    return this.run('send-keys', '-t', this.session, '-l', line).then(() => this.keys('Enter'));
  }

  keys(...keys: string[]): Promise<string> {
    return this.run('send-keys', '-t', this.session, ...keys);
  }

  screen(): Promise<string> {
    return this.run('capture-pane', '-p', '-t', this.session);
  }

  async flag(name: string): Promise<string> {
    return (await this.run('display-message', '-p', '-t', this.session, `#{${name}}`)).trim();
  }

  /** Polls the screen until `check` passes (timeouts in seconds, never a fixed sleep). */
  async screenWhere(check: (screen: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
    let last = '';
    try {
      return await waitFor(
        async () => {
          last = await this.screen();
          return check(last) ? last : null;
        },
        timeoutMs,
        100,
      );
    } catch {
      throw new Error(`the screen never showed ${what}; it showed:\n${last}`);
    }
  }

  async stop(): Promise<void> {
    await this.run('kill-session', '-t', this.session).catch(() => {});
  }
}
