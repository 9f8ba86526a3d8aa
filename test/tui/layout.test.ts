import { describe, expect, it } from 'vitest';
import {
  bodyHeight,
  clusterColumns,
  clusterRows,
  fitsScreen,
  historyRows,
  jobColumns,
  mainPanes,
  outputRows,
} from '../../src/tui/layout.js';

/** The width of a jobs table row: cursor, then the columns, one space apart. */
function rowWidth(width: number): number {
  const c = jobColumns(width);
  return (
    2 +
    c.name +
    1 +
    c.schedule +
    1 +
    c.next +
    1 +
    c.last +
    (c.runs ? 1 + c.runs : 0) +
    (c.labels ? 1 + c.labels : 0)
  );
}

/** The width of a cluster view row: gutter, the node, then each shown column with a space before it. */
function clusterRowWidth(width: number): number {
  const { name, ...rest } = clusterColumns(width);
  return 2 + name + Object.values(rest).reduce((sum, column) => sum + (column ? column + 1 : 0), 0);
}

describe('layout', () => {
  it.each([50, 60, 70, 80, 100, 120, 200])(
    'given a terminal %i columns wide, when the jobs table is laid out, then a row leaves the last column free',
    (width) => {
      expect(rowWidth(width)).toBeLessThanOrEqual(width - 1);
    },
  );

  it('given 80 columns, when laid out, then labels give way to name, schedule, next, last and the sparkline', () => {
    expect(jobColumns(80)).toMatchObject({ labels: 0, runs: 10, next: 10, last: 9 });
    expect(jobColumns(120).labels).toBeGreaterThan(0);
  });

  it('given 80x24, when the panes are laid out, then header, jobs pane, runs pane and footer fill 23 lines', () => {
    const { jobRows, runRows } = mainPanes({ columns: 80, rows: 24 }, 0);
    expect(bodyHeight({ columns: 80, rows: 24 })).toBe(23);
    expect(2 + 2 + jobRows + 1 + runRows + 1).toBe(23);
  });

  it('given many running runs, when laid out, then the runs pane grows to at most 5 rows and the table keeps the rest', () => {
    expect(mainPanes({ columns: 80, rows: 40 }, 50).runRows).toBe(5);
    expect(mainPanes({ columns: 80, rows: 24 }, 50).runRows).toBe(3);
  });

  it('given the job and run views, when laid out, then their lists take what the titles leave', () => {
    expect(historyRows({ columns: 80, rows: 24 })).toBe(23 - 2 - 1 - 5 - 2 - 1);
    expect(outputRows({ columns: 80, rows: 24 })).toBe(23 - 2 - 1 - 1);
  });

  it.each([50, 60, 70, 80, 100, 120, 200])(
    'given a terminal %i columns wide, when the cluster view is laid out, then a row leaves the last column free',
    (width) => {
      expect(clusterRowWidth(width)).toBeLessThanOrEqual(width - 1);
    },
  );

  it('given 80 columns, when the cluster view is laid out, then every column shows; at 50, host, load and version give way', () => {
    expect(Object.values(clusterColumns(80)).every((column) => column > 0)).toBe(true);
    expect(clusterColumns(50)).toMatchObject({
      host: 0,
      load: 0,
      version: 0,
      labels: 0,
      heartbeat: 9,
      shards: 6,
    });
  });

  it('given 80x24, when the cluster view is laid out, then its title, column titles, nodes and notes fill what header and footer leave', () => {
    expect(2 + 2 + clusterRows({ columns: 80, rows: 24 }) + 1 + 1).toBe(23);
  });

  it('given a tiny terminal, when checked, then it does not fit', () => {
    expect(fitsScreen({ columns: 40, rows: 24 })).toBe(false);
    expect(fitsScreen({ columns: 80, rows: 24 })).toBe(true);
  });
});
