import { render } from 'ink';
import type { ClientTarget } from '../client/sched-client.js';
import { DaemonBackend, type DaemonBackendOptions } from './backend/daemon-backend.js';
import { Dashboard } from './Dashboard.js';
import { FrameSink } from './terminal/frame-sink.js';
import { Screen } from './terminal/screen.js';
import { themeFromEnv } from './theme.js';

type TerminalOut = NodeJS.WritableStream & {
  columns?: number;
  rows?: number;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
};

export interface RunDashboardOptions {
  target: ClientTarget;
  env: Record<string, string | undefined>;
  zone: string;
  /** The terminal; the benchmark passes a recording stand-in. */
  stdout?: TerminalOut;
  stdin?: NodeJS.ReadStream;
  backend?: Partial<DaemonBackendOptions>;
}

// Ctrl-C arrives as a key in raw mode; these come from elsewhere (kill, a closed terminal). Listening
// for them also stops Ink's exit hook from killing the process before the terminal is restored.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `sched dash`: draws the dashboard on the alternate screen until q (or Ctrl-C, SIGINT, SIGTERM, SIGHUP), then
 * gives the terminal back as it was: the main screen and its text, the cursor, and cooked mode (Ink
 * leaves raw mode as it unmounts). Console output meanwhile would tear the screen; it is held and
 * printed after.
 */
export async function runDashboard(options: RunDashboardOptions): Promise<void> {
  const terminal = options.stdout ?? process.stdout;
  const backend = new DaemonBackend({ ...options.backend, target: options.target });
  const screen = new Screen(terminal);
  const frames = new FrameSink(terminal, (frame) => screen.paint(frame));
  const resized = () => {
    screen.repaint();
    frames.emit('resize');
  };
  const held = holdConsole();

  screen.enter();
  process.once('exit', screen.leave);
  terminal.on('resize', resized);
  const instance = render(
    <Dashboard backend={backend} theme={themeFromEnv(options.env)} zone={options.zone} />,
    {
      stdout: frames as unknown as NodeJS.WriteStream,
      stdin: options.stdin ?? process.stdin,
      // Debug mode writes whole frames and nothing else; the Screen turns them into minimal updates.
      debug: true,
      exitOnCtrlC: true,
      patchConsole: false,
    },
  );
  const quit = () => instance.unmount();
  for (const signal of SIGNALS) process.once(signal, quit);
  try {
    await instance.waitUntilExit();
  } finally {
    for (const signal of SIGNALS) process.off(signal, quit);
    terminal.off('resize', resized);
    backend.stop();
    screen.leave();
    process.off('exit', screen.leave);
    held.release();
  }
}

/** Keeps console output off the dashboard's screen and replays it on stderr once the screen is gone. */
function holdConsole(): { release(): void } {
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const originals = methods.map((method) => console[method]);
  const lines: string[] = [];
  for (const method of methods)
    console[method] = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  return {
    release() {
      methods.forEach((method, index) => (console[method] = originals[index]!));
      for (const line of lines) process.stderr.write(`${line}\n`);
    },
  };
}
