import { Box, Text } from 'ink';
import { fit } from '../cells.js';
import { toneColour, type Theme } from '../theme.js';
import type { DetailView } from '../view-model.js';

export interface JobDetailProps {
  view: DetailView;
  /** Rows for the run list. */
  height: number;
  width: number;
  theme: Theme;
}

/** A job: what it is and runs, then its runs, newest first; Enter opens the selected run's output. */
export function JobDetail({ view, height, width, theme }: JobDetailProps) {
  const labelWidth = 9;
  const blanks = Math.max(0, height - Math.max(view.runs.length, 1));
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {'‹ '}
        {view.title} <Text color={toneColour(theme, view.state.tone)}>{view.state.text}</Text>
      </Text>
      {view.fields.map(([label, value]) => (
        <Text key={label} wrap="truncate-end">
          {'  '}
          <Text dimColor>{fit(label, labelWidth)}</Text> {fit(value, Math.max(0, width - labelWidth - 4))}
        </Text>
      ))}
      <Text> </Text>
      <Text bold wrap="truncate-end">
        {'  RUNS'}
        <Text dimColor>{view.total > 0 ? ` (${view.total}${view.loaded ? '' : ', loading…'})` : ''}</Text>
      </Text>
      {view.runs.length === 0 ? <Text dimColor>{view.loaded ? '  no runs yet' : '  loading…'}</Text> : null}
      {view.runs.map((run) => {
        const selected = run.id === view.selectedRunId;
        return (
          <Text key={run.id} wrap="truncate-end" inverse={selected}>
            {selected ? '› ' : '  '}
            {run.when} {fit(run.attempt, 4)}{' '}
            <Text color={toneColour(theme, run.state.tone)}>{fit(run.state.text, 12)}</Text>{' '}
            {fit(run.exit, 12)} {fit(run.took, 8, 'right')} {run.trigger}
          </Text>
        );
      })}
      {blanks > 0 ? <Box height={blanks} /> : null}
    </Box>
  );
}
