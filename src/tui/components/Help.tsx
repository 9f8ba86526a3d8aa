import { Box, Text } from 'ink';
import { fit } from '../cells.js';

export interface HelpProps {
  keys: readonly (readonly [string, string])[];
  height: number;
}

/** The keys, in place of the panes; any key returns. */
export function Help({ keys, height }: HelpProps) {
  const lines = [
    ...keys.map(([key, what]) => `  ${fit(key, 10)}  ${what}`),
    '',
    '  Rows keep their order while jobs change; press s to sort again.',
    '  Times are in your zone; schedules are described in each job’s zone.',
  ];
  return (
    <Box flexDirection="column" height={height}>
      <Text bold>KEYS</Text>
      {lines.slice(0, Math.max(0, height - 1)).map((line, index) => (
        <Text key={index} wrap="truncate-end">
          {line}
        </Text>
      ))}
    </Box>
  );
}
