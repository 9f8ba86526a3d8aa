import { Box, Text } from 'ink';
import { toneColour, type Theme } from '../theme.js';
import type { OutputView } from '../view-model.js';

export interface RunOutputProps {
  view: OutputView;
  height: number;
  theme: Theme;
}

/**
 * A run's output tail, scrollable; it follows new output while scrolled to the end. Lines from stderr
 * carry a bar in the gutter, so they stand out without colour too.
 */
export function RunOutput({ view, height, theme }: RunOutputProps) {
  const blanks = Math.max(0, height - Math.max(view.lines.length, view.note ? 1 : 0));
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {'‹ '}
        {view.state ? <Text color={toneColour(theme, view.state.tone)}>{view.state.text}</Text> : null}
        {view.state ? ' ' : ''}
        {view.title}
      </Text>
      {view.note ? <Text dimColor>{`  ${view.note}`}</Text> : null}
      {view.lines.map((line, index) =>
        line.stream === 'stderr' ? (
          <Text key={view.first + index} wrap="truncate-end">
            <Text color={toneColour(theme, 'bad')}>▌ </Text>
            {line.text}
          </Text>
        ) : (
          <Text key={view.first + index} wrap="truncate-end">
            {'  '}
            {line.text}
          </Text>
        ),
      )}
      {blanks > 0 ? <Box height={blanks} /> : null}
    </Box>
  );
}
