import { Box, Text } from 'ink';
import { toneColour, type Theme } from '../theme.js';
import type { RunRowView } from '../view-model.js';

export interface RunsPaneProps {
  rows: readonly RunRowView[];
  total: number;
  height: number;
  selectedId: string | null;
  focused: boolean;
  theme: Theme;
}

/** What runs right now, with elapsed time; Tab moves the selection here, to open or kill a run. */
export function RunsPane({ rows, total, height, selectedId, focused, theme }: RunsPaneProps) {
  const blanks = Math.max(0, height - Math.max(rows.length, 1));
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {focused ? '› ' : '  '}RUNNING NOW{total > 0 ? ` (${total})` : ''}
        {total > rows.length ? <Text dimColor>{`  ${rows.length} shown`}</Text> : null}
      </Text>
      {rows.length === 0 ? (
        <Text dimColor wrap="truncate-end">
          {'  nothing running'}
        </Text>
      ) : null}
      {rows.map((row) => {
        const selected = focused && row.id === selectedId;
        return (
          <Text key={row.id} wrap="truncate-end" inverse={selected}>
            {selected ? '› ' : '  '}
            <Text color={toneColour(theme, row.state.tone)}>●</Text> {row.text}
          </Text>
        );
      })}
      {blanks > 0 ? <Box height={blanks} /> : null}
    </Box>
  );
}
