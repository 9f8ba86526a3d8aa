/**
 * Where things go on a screen of a given size. Pure, so a resize is just new numbers, and the reducer uses
 * the same figures as the components to keep the selection on screen.
 */
export interface ScreenSize {
  columns: number;
  rows: number;
}

export const MIN_SIZE: ScreenSize = { columns: 50, rows: 12 };
const HEADER_ROWS = 2;
const FOOTER_ROWS = 1;
const MAX_RUN_ROWS = 5;
/** Fields above a job's history in the job view (see components/JobDetail.tsx). */
export const DETAIL_FIELD_ROWS = 5;

export function fitsScreen(size: ScreenSize): boolean {
  return size.columns >= MIN_SIZE.columns && size.rows >= MIN_SIZE.rows;
}

/**
 * The dashboard draws one line less than the terminal has: Ink clears the whole terminal on every frame
 * once its output fills the screen, which is exactly the flicker a dashboard must not have.
 */
export function bodyHeight(size: ScreenSize): number {
  return Math.max(size.rows, MIN_SIZE.rows) - 1;
}

export interface MainPanes {
  jobRows: number;
  runRows: number;
}

/** The jobs table gets what the header, the runs pane (one row per running run, up to 5) and the footer leave. */
export function mainPanes(size: ScreenSize, runningCount: number): MainPanes {
  const height = bodyHeight(size);
  const runRows = Math.min(Math.max(runningCount, 1), MAX_RUN_ROWS, Math.floor(height / 6) || 1);
  // jobs title and column titles (2) + runs title (1)
  const jobRows = Math.max(1, height - HEADER_ROWS - 2 - 1 - runRows - FOOTER_ROWS);
  return { jobRows, runRows };
}

/** Rows of the run list in the job view: under its title, the fields and the list's own titles. */
export function historyRows(size: ScreenSize): number {
  return Math.max(1, bodyHeight(size) - HEADER_ROWS - 1 - DETAIL_FIELD_ROWS - 2 - FOOTER_ROWS);
}

/** Lines of output in the run view, under its title. */
export function outputRows(size: ScreenSize): number {
  return Math.max(1, bodyHeight(size) - HEADER_ROWS - 1 - FOOTER_ROWS);
}

/** Node rows of the cluster view: under its title and column titles, above its line of shard and lag notes. */
export function clusterRows(size: ScreenSize): number {
  return Math.max(1, bodyHeight(size) - HEADER_ROWS - 2 - 1 - FOOTER_ROWS);
}

/** Widths of the jobs table's columns; 0 hides one. One space separates columns; 2 go to the cursor. */
export interface JobColumns {
  name: number;
  schedule: number;
  next: number;
  last: number;
  runs: number;
  labels: number;
}

export function jobColumns(width: number): JobColumns {
  const next = 10;
  const last = 9;
  const runs = width >= 70 ? 10 : 0;
  const fixed = 2 + next + 1 + last + 1 + (runs ? runs + 1 : 0);
  // A line as wide as the terminal makes some terminals wrap; keep one column free.
  const rest = Math.max(20, width - fixed - 2);
  if (rest < 60) {
    const name = Math.min(24, Math.max(10, Math.floor(rest * 0.38)));
    return { name, schedule: rest - name, next, last, runs, labels: 0 };
  }
  const name = Math.min(28, Math.floor(rest * 0.3));
  const schedule = Math.min(44, Math.floor(rest * 0.45));
  return { name, schedule, next, last, runs, labels: rest - name - schedule - 1 };
}

/** Widths of the cluster view's columns; 0 hides one. One space separates columns; 2 go to the gutter. */
export interface ClusterColumns {
  name: number;
  host: number;
  state: number;
  shards: number;
  load: number;
  heartbeat: number;
  version: number;
  labels: number;
}

export function clusterColumns(width: number): ClusterColumns {
  // `* 8b1d2e3f (this)`, `● alive`, `12.3s ago`: the widest values these columns hold.
  const columns: ClusterColumns = {
    name: 17,
    host: 0,
    state: 7,
    shards: 6,
    load: 4,
    heartbeat: 9,
    version: 8,
    labels: 0,
  };
  // What is left for the host and the labels, each with its space; one column of the line stays free.
  const room = () =>
    width -
    1 -
    Object.values(columns).reduce((line: number, column: number) => line + (column ? column + 1 : 0), 1);
  // On a narrow screen the id says which node it is; its state, shards and heartbeat matter more than the rest.
  if (room() < 9) columns.version = 0;
  if (room() < 9) columns.load = 0;
  const rest = room();
  if (rest < 9) return columns;
  const host = Math.min(20, Math.max(8, Math.floor(rest / 2) - 1));
  const labels = rest - host - 2;
  // Labels narrower than `zone=a` say nothing; the host takes their room instead.
  if (labels < 6) return { ...columns, host: Math.min(20, rest - 1) };
  return { ...columns, host, labels };
}
