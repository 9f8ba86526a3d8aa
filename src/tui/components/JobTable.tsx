import { Box, Text } from 'ink';
import { memo } from 'react';
import { fit } from '../cells.js';
import type { JobColumns } from '../layout.js';
import { toneColour, type Theme } from '../theme.js';
import type { JobRowView } from '../view-model.js';

export interface JobTableProps {
  columns: JobColumns;
  rows: readonly JobRowView[];
  selectedId: string | null;
  focused: boolean;
  /** Rows the table takes on screen, whatever it holds: panes below never move. */
  height: number;
  /** Where the rows are among the jobs, the order and the filter. */
  title: string;
  /** Jobs after the filter. */
  total: number;
  filter: string;
  theme: Theme;
}

/** The jobs: only the rows on screen are rendered, whatever the number of jobs. */
export function JobTable({
  columns,
  rows,
  selectedId,
  focused,
  height,
  title,
  total,
  filter,
  theme,
}: JobTableProps) {
  const titles = [
    fit('NAME', columns.name),
    fit('SCHEDULE', columns.schedule),
    fit('NEXT', columns.next, 'right'),
    fit('LAST', columns.last),
    columns.runs ? fit('RUNS', columns.runs) : '',
    columns.labels ? fit('LABELS', columns.labels) : '',
  ];
  const blanks = Math.max(0, height - Math.max(rows.length, total === 0 ? 1 : 0));
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>{focused ? '› JOBS' : '  JOBS'}</Text> <Text dimColor>{title}</Text>
      </Text>
      <Text dimColor wrap="truncate-end">
        {'  '}
        {titles.filter(Boolean).join(' ')}
      </Text>
      {total === 0 ? (
        <Text dimColor wrap="truncate-end">
          {filter
            ? `  No job matches “${filter}”. Esc clears the filter.`
            : '  No jobs yet. Add one with `sched add`.'}
        </Text>
      ) : null}
      {rows.map((row) => (
        <JobRow
          key={row.id}
          row={row}
          columns={columns}
          selected={row.id === selectedId}
          focused={focused}
          theme={theme}
        />
      ))}
      {blanks > 0 ? <Box height={blanks} /> : null}
    </Box>
  );
}

interface JobRowProps {
  row: JobRowView;
  columns: JobColumns;
  selected: boolean;
  focused: boolean;
  theme: Theme;
}

const JobRow = memo(function JobRow({ row, columns, selected, focused, theme }: JobRowProps) {
  return (
    <Text wrap="truncate-end" inverse={selected && focused}>
      {selected ? '› ' : '  '}
      {fit(row.name, columns.name)} {fit(row.schedule, columns.schedule)}{' '}
      <Text color={toneColour(theme, row.next.tone)}>{fit(row.next.text, columns.next, 'right')}</Text>{' '}
      <Text color={toneColour(theme, row.last.tone)}>{fit(row.last.text, columns.last)}</Text>
      {columns.runs ? ' ' : ''}
      {row.runs.map((cell, index) => (
        <Text key={index} color={toneColour(theme, cell.tone)}>
          {cell.text}
        </Text>
      ))}
      {columns.labels ? <Text dimColor>{` ${fit(row.labels, columns.labels)}`}</Text> : ''}
    </Text>
  );
});
