import { Box, Text } from 'ink';
import { fit } from '../cells.js';
import { toneColour, type Theme } from '../theme.js';
import type { HeaderView } from '../view-model.js';

export interface HeaderProps {
  view: HeaderView;
  width: number;
  theme: Theme;
}

/** Two lines: the daemon and the connection; then the counts by state and runs per minute. */
export function Header({ view, width, theme }: HeaderProps) {
  // While the connection is down, saying so matters more than the daemon's details.
  const room = view.connection.tone === 'ok' ? Math.floor(width / 3) : width - 12;
  const connection = fit(view.connection.text, Math.min(view.connection.text.length, room));
  const daemon = fit(view.daemon, Math.max(0, width - connection.length - 'sched  '.length - 2));
  const failing = view.failing > 0 ? ` · ✗ ${view.failing} failing` : '';
  const counts = `${view.jobs} · ${view.runs}`;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>sched</Text> {daemon}{' '}
        <Text color={toneColour(theme, view.connection.tone)}>{connection}</Text>
      </Text>
      <Text wrap="truncate-end">
        {counts}
        <Text color={toneColour(theme, 'bad')}>{failing}</Text>
      </Text>
    </Box>
  );
}
