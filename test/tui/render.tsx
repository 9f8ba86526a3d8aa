import { render } from 'ink-testing-library';
import type { RunSummary } from '../../src/core/run.js';
import type { DashBackend, Dispatch } from '../../src/tui/backend/backend.js';
import { DashboardView } from '../../src/tui/components/DashboardView.js';
import { Dashboard } from '../../src/tui/Dashboard.js';
import type { DashState, Effect } from '../../src/tui/state/types.js';
import type { Theme } from '../../src/tui/theme.js';

const ANSI = new RegExp(String.raw`\u001b\[[0-9;?]*[A-Za-z]`, 'g');
export const NO_COLOUR: Theme = { colour: false };

export function plain(text: string | undefined): string {
  return (text ?? '').replace(ANSI, '');
}

/** The frame DashboardView draws for a state, as text: what a person would read on the screen. */
export function screenOf(state: DashState, theme: Theme = NO_COLOUR): string {
  const { lastFrame, unmount } = render(<DashboardView state={state} theme={theme} />);
  const frame = lastFrame();
  unmount();
  return plain(frame);
}

/** The same with the escape codes kept, to see colour. */
export function rawScreenOf(state: DashState, theme: Theme): string {
  const { lastFrame, unmount } = render(<DashboardView state={state} theme={theme} />);
  const frame = lastFrame() ?? '';
  unmount();
  return frame;
}

/** Polls the last frame until it passes `check`, for up to a few seconds. */
export async function frameWhere(
  instance: { lastFrame: () => string | undefined },
  check: (frame: string) => boolean,
  timeoutMs = 3_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = plain(instance.lastFrame());
    if (check(frame)) return frame;
    if (Date.now() > deadline)
      throw new Error(`no frame matched within ${timeoutMs} ms; last frame:\n${frame}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A stand-in for the daemon: the test dispatches what the daemon would cause and sees what keys asked. */
export class FakeBackend implements DashBackend {
  dispatch: Dispatch = () => {
    throw new Error('the dashboard has not started the backend');
  };
  readonly effects: Effect[] = [];
  readonly historiesAsked: string[] = [];
  stopped = false;

  constructor(private readonly histories = new Map<string, RunSummary[]>()) {}

  start(dispatch: Dispatch): () => void {
    this.dispatch = dispatch;
    return () => {
      this.stopped = true;
    };
  }

  perform(effect: Effect): void {
    this.effects.push(effect);
  }

  async loadHistory(jobId: string): Promise<readonly RunSummary[]> {
    this.historiesAsked.push(jobId);
    return this.histories.get(jobId) ?? [];
  }
}

/** The live dashboard on a 100-column test terminal, fed by `backend`, with the clock stopped at `now`. */
export function renderDashboard(backend: DashBackend, now: number) {
  const instance = render(
    <Dashboard backend={backend} theme={NO_COLOUR} zone="UTC" now={() => now} historyDelayMs={0} />,
  );
  return {
    ...instance,
    screen: () => plain(instance.lastFrame()),
    press: (keys: string) => instance.stdin.write(keys),
    frameWhere: (check: (frame: string) => boolean) => frameWhere(instance, check),
  };
}
