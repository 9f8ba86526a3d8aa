import { Box, Text } from 'ink';
import { Fragment } from 'react';
import { fit } from '../cells.js';
import type { ClusterNodeRowView, ClusterPanelView } from '../cluster-view-model.js';
import type { ClusterColumns } from '../layout.js';
import { toneColour, type Theme } from '../theme.js';

export interface ClusterPanelProps {
  view: ClusterPanelView;
  /** Rows for the nodes: the notes line stays at the bottom whatever the number of nodes. */
  height: number;
  theme: Theme;
}

/** The daemons of the cluster, the coordinator first; Esc or n goes back to the jobs. */
export function ClusterPanel({ view, height, theme }: ClusterPanelProps) {
  const { columns } = view;
  const titles = [
    fit('NODE', columns.name),
    columns.host ? fit('HOST', columns.host) : '',
    fit('STATE', columns.state),
    fit('SHARDS', columns.shards, 'right'),
    columns.load ? fit('LOAD', columns.load, 'right') : '',
    fit('HEARTBEAT', columns.heartbeat, 'right'),
    columns.version ? fit('VERSION', columns.version) : '',
    columns.labels ? fit('LABELS', columns.labels) : '',
  ];
  const blanks = Math.max(0, height - Math.max(view.rows.length, view.message ? 1 : 0));
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>{'‹ CLUSTER'}</Text> <Text dimColor>{view.title}</Text>
      </Text>
      <Text dimColor wrap="truncate-end">
        {'  '}
        {titles.filter(Boolean).join(' ')}
      </Text>
      {view.message ? (
        <Text wrap="truncate-end" color={toneColour(theme, view.message.tone)}>
          {`  ${view.message.text}`}
        </Text>
      ) : null}
      {view.rows.map((row) => (
        <NodeRow key={row.id} row={row} columns={columns} theme={theme} />
      ))}
      {blanks > 0 ? <Box height={blanks} /> : null}
      <Text wrap="truncate-end">
        {'  '}
        {view.notes.map((note, index) => (
          <Fragment key={index}>
            {index > 0 ? ' · ' : ''}
            <Text color={toneColour(theme, note.tone)}>{note.text}</Text>
          </Fragment>
        ))}
      </Text>
    </Box>
  );
}

function NodeRow({
  row,
  columns,
  theme,
}: {
  row: ClusterNodeRowView;
  columns: ClusterColumns;
  theme: Theme;
}) {
  // A hidden column (width 0) takes no room, not even the space before it.
  const column = (text: string, width: number, align: 'left' | 'right' = 'left') =>
    width ? ` ${fit(text, width, align)}` : '';
  return (
    <Text wrap="truncate-end" dimColor={row.dead}>
      {'  '}
      {fit(row.name, columns.name)}
      {column(row.host, columns.host)}{' '}
      <Text color={toneColour(theme, row.state.tone)}>{fit(row.state.text, columns.state)}</Text>
      {column(row.shards, columns.shards, 'right')}
      {column(row.load, columns.load, 'right')}
      {column(row.heartbeat, columns.heartbeat, 'right')}
      {column(row.version, columns.version)}
      {column(row.labels, columns.labels)}
    </Text>
  );
}
