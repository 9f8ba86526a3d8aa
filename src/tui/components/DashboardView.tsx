import { Box, Text } from 'ink';
import { KEY_HELP } from '../keymap.js';
import { clusterPanel } from '../cluster-view-model.js';
import {
  bodyHeight,
  clusterRows,
  fitsScreen,
  historyRows,
  mainPanes,
  MIN_SIZE,
  outputRows,
} from '../layout.js';
import type { DashState } from '../state/types.js';
import type { Theme } from '../theme.js';
import { header, jobDetail, jobRows, runOutput, runRows } from '../view-model.js';
import { ClusterPanel } from './ClusterPanel.js';
import { footer } from './footer-text.js';
import { Footer } from './Footer.js';
import { Header } from './Header.js';
import { Help } from './Help.js';
import { JobDetail } from './JobDetail.js';
import { JobTable } from './JobTable.js';
import { RunOutput } from './RunOutput.js';
import { RunsPane } from './RunsPane.js';

export interface DashboardViewProps {
  state: DashState;
  theme: Theme;
}

/** The whole screen for one state: header, the current view, footer. Exactly one line short of the terminal. */
export function DashboardView({ state, theme }: DashboardViewProps) {
  const { size } = state;
  const width = Math.max(size.columns, MIN_SIZE.columns) - 1;
  if (!fitsScreen(size)) {
    return (
      <Text wrap="truncate-end">
        {`sched dash needs at least ${MIN_SIZE.columns}×${MIN_SIZE.rows}; this terminal is ${size.columns}×${size.rows}.`}
      </Text>
    );
  }
  const foot = footer(state, width);
  return (
    <Box flexDirection="column" width={width} height={bodyHeight(size)}>
      <Header view={header(state)} width={width} theme={theme} />
      <Box flexDirection="column" flexGrow={1}>
        <Body state={state} theme={theme} width={width} />
      </Box>
      <Footer text={foot.text} tone={foot.tone} quiet={foot.quiet} theme={theme} />
    </Box>
  );
}

function Body({ state, theme, width }: DashboardViewProps & { width: number }) {
  const { size, view } = state;
  if (state.help) return <Help keys={KEY_HELP} height={bodyHeight(size) - 3} />;
  if (view.kind === 'job') {
    const detail = jobDetail(state, view.jobId, view.runId, view.scroll);
    if (detail) return <JobDetail view={detail} height={historyRows(size)} width={width} theme={theme} />;
  }
  if (view.kind === 'cluster')
    return <ClusterPanel view={clusterPanel(state, view.scroll)} height={clusterRows(size)} theme={theme} />;
  if (view.kind === 'run')
    return (
      <RunOutput view={runOutput(state, view.runId, view.scroll)} height={outputRows(size)} theme={theme} />
    );
  const jobs = jobRows(state);
  const runs = runRows(state);
  const panes = mainPanes(size, state.running.size);
  return (
    <Box flexDirection="column">
      <JobTable
        columns={jobs.columns}
        rows={jobs.rows}
        selectedId={state.selectedJobId}
        focused={state.focus === 'jobs'}
        height={panes.jobRows}
        title={jobs.title}
        total={jobs.total}
        filter={state.filter}
        theme={theme}
      />
      <RunsPane
        rows={runs.rows}
        total={runs.total}
        height={runs.height}
        selectedId={state.selectedRunId}
        focused={state.focus === 'runs'}
        theme={theme}
      />
    </Box>
  );
}
