import { useApp, useInput, useStdout } from 'ink';
import { useEffect, useReducer, useRef } from 'react';
import type { DashBackend } from './backend/backend.js';
import { DashboardView } from './components/DashboardView.js';
import { interpretKey, splitKeys } from './keymap.js';
import type { ScreenSize } from './layout.js';
import { initialState, reduce } from './state/reduce.js';
import { visibleJobIds } from './state/selectors.js';
import type { DashState } from './state/types.js';
import type { Theme } from './theme.js';

export interface DashboardProps {
  backend: DashBackend;
  theme: Theme;
  zone: string;
  now?: () => number;
  /** Quiet time before the histories of the rows on screen are read, so scrolling fast reads nothing. */
  historyDelayMs?: number;
}

/**
 * The live dashboard: the reducer's state, fed by the backend, the clock and the keyboard, drawn by
 * DashboardView. The only component with effects; every other one gets props.
 */
export function Dashboard({ backend, theme, zone, now = Date.now, historyDelayMs = 120 }: DashboardProps) {
  const { stdout } = useStdout();
  const { exit } = useApp();
  const [state, dispatch] = useReducer(reduce, undefined, () =>
    initialState(screenSize(stdout), now(), zone),
  );
  const current = useRef(state);
  current.current = state;

  useEffect(() => backend.start(dispatch), [backend]);
  useSecondTicks(dispatch, now);

  useEffect(() => {
    const resized = () => dispatch({ type: 'resize', ...screenSize(stdout) });
    stdout.on('resize', resized);
    return () => void stdout.off('resize', resized);
  }, [stdout]);

  const wanted = historyWanted(state);
  const requested = useRef(new Set<string>());
  useEffect(() => {
    if (wanted.length === 0) return;
    const timer = setTimeout(() => {
      for (const jobId of wanted) {
        if (requested.current.has(jobId)) continue;
        requested.current.add(jobId);
        backend.loadHistory(jobId).then(
          (runs) => {
            requested.current.delete(jobId);
            dispatch({ type: 'history', jobId, runs });
          },
          // Not connected: the row asks again once a new snapshot is in.
          () => requested.current.delete(jobId),
        );
      }
    }, historyDelayMs);
    return () => clearTimeout(timer);
  }, [wanted.join(','), backend, historyDelayMs]);

  useInput((input, key) => {
    for (const [one, oneKey] of splitKeys(input, key)) {
      // Each key sees the state the previous one left: reduce ahead instead of waiting for a render.
      const outcome = interpretKey(current.current, one, oneKey);
      for (const action of outcome.actions) {
        current.current = reduce(current.current, action);
        dispatch(action);
      }
      for (const effect of outcome.effects) backend.perform(effect, dispatch);
      if (outcome.quit) return exit();
    }
  });

  return <DashboardView state={state} theme={theme} />;
}

/** Countdowns tick on the second, all together, rather than drifting by the time the dashboard started. */
function useSecondTicks(dispatch: (action: { type: 'tick'; now: number }) => void, now: () => number): void {
  useEffect(() => {
    let timer: NodeJS.Timeout;
    const schedule = () => {
      timer = setTimeout(
        () => {
          dispatch({ type: 'tick', now: now() });
          schedule();
        },
        1_000 - (now() % 1_000) + 5,
      );
    };
    schedule();
    return () => clearTimeout(timer);
  }, [dispatch, now]);
}

/** Jobs on screen (or open) whose history was not read yet while connected. */
function historyWanted(state: DashState): string[] {
  if (state.connection.kind !== 'live') return [];
  const ids =
    state.view.kind === 'job'
      ? [state.view.jobId]
      : visibleJobIds(state).slice(state.jobScroll, state.jobScroll + state.size.rows);
  return ids.filter((id) => !state.historyLoaded.has(id));
}

function screenSize(stdout: NodeJS.WriteStream): ScreenSize {
  return { columns: stdout.columns || 80, rows: stdout.rows || 24 };
}
