import { formatDuration } from '../core/duration.js';
import type { Job } from '../core/job.js';
import { jobStatus } from '../core/job-status.js';
import type { RunState, RunSummary } from '../core/run.js';
import { formatRelative } from '../cli/format/time.js';
import type { Tone } from './theme.js';

/**
 * The text of the dashboard's cells. Pure and width-aware: every cell is cut or padded to its column, so
 * a changing value never pushes the columns after it.
 */
export interface Cell {
  text: string;
  tone: Tone;
}

/** Cuts `text` to `width` columns with an ellipsis, and pads it to exactly `width`. */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  const chars = [...text];
  const cut = chars.length > width ? `${chars.slice(0, width - 1).join('')}…` : text;
  const fill = ' '.repeat(Math.max(0, width - Math.min(chars.length, width)));
  return align === 'right' ? fill + cut : cut + fill;
}

/** The next run as a countdown (`in 4m`, `in 12s`), or why there is none. */
export function nextRunCell(job: Job, now: number): Cell {
  if (job.overdueSince !== undefined) return { text: '⚠ overdue', tone: 'bad' };
  if (job.state === 'paused') return { text: '‖ paused', tone: 'warn' };
  if (jobStatus(job) === 'done') return { text: '✓ done', tone: 'plain' };
  if (job.nextRunAt === null) return { text: '-', tone: 'plain' };
  if (job.nextRunAt <= now) return { text: 'due now', tone: 'active' };
  return { text: formatRelative(job.nextRunAt, now), tone: 'plain' };
}

const RESULT_GLYPHS: Record<RunState, { glyph: string; tone: Tone }> = {
  scheduled: { glyph: '…', tone: 'plain' },
  running: { glyph: '●', tone: 'active' },
  succeeded: { glyph: '✓', tone: 'ok' },
  failed: { glyph: '✗', tone: 'bad' },
  timed_out: { glyph: '✗', tone: 'bad' },
  cancelled: { glyph: '–', tone: 'plain' },
  lost: { glyph: '?', tone: 'lost' },
};

/** The latest run: `✓ 2s`, `✗ 1m3s`, `● 12s` while it runs (its elapsed time), `… due` while it waits. */
export function lastResultCell(run: RunSummary | undefined, now: number): Cell {
  if (!run) return { text: '-', tone: 'plain' };
  const { glyph, tone } = RESULT_GLYPHS[run.state];
  if (run.state === 'scheduled') return { text: `${glyph} due`, tone };
  if (run.state === 'timed_out') return { text: `${glyph} timeout`, tone };
  if (run.state === 'lost') return { text: `${glyph} lost`, tone };
  if (run.startedAt === null) return { text: `${glyph} ${run.state}`, tone };
  if (run.state === 'running') return { text: `${glyph} ${elapsed(now - run.startedAt)}`, tone };
  return { text: `${glyph} ${formatDuration((run.finishedAt ?? now) - run.startedAt)}`, tone };
}

/** Time a run has been running, in whole seconds: it changes once a tick, like the countdowns. */
export function elapsed(ms: number): string {
  return ms < 1_000 ? '0s' : formatDuration(Math.floor(ms / 1_000) * 1_000);
}

/** A word for a run's state, with its glyph: `✓ succeeded`. */
export function runStateCell(state: RunState): Cell {
  const { glyph, tone } = RESULT_GLYPHS[state];
  return { text: `${glyph} ${state.replace('_', ' ')}`, tone };
}

const SPARK: Record<RunState, { glyph: string; tone: Tone }> = {
  succeeded: { glyph: '▇', tone: 'ok' },
  failed: { glyph: '▁', tone: 'bad' },
  timed_out: { glyph: '▁', tone: 'bad' },
  lost: { glyph: '▁', tone: 'lost' },
  cancelled: { glyph: '▃', tone: 'plain' },
  running: { glyph: '▒', tone: 'active' },
  scheduled: { glyph: '·', tone: 'plain' },
};

/**
 * The latest `width` runs, oldest on the left: a tall bar for a success, a low one for a failure, so the
 * shape reads without colour. Runs of the same tone are joined into one cell to keep the frame small.
 */
export function sparkline(runs: readonly RunSummary[] | undefined, width: number): Cell[] {
  const latest = (runs ?? []).slice(0, width).reverse();
  const cells: Cell[] = [];
  for (const run of latest) {
    const { glyph, tone } = SPARK[run.state];
    const last = cells[cells.length - 1];
    if (last && last.tone === tone) last.text += glyph;
    else cells.push({ text: glyph, tone });
  }
  const used = latest.length;
  if (used < width) cells.push({ text: ' '.repeat(width - used), tone: 'plain' });
  return cells;
}

/** `up 3h 2m`: the two largest units, like the countdowns. */
export function uptime(startedAt: number, now: number): string {
  const text = formatRelative(startedAt, now);
  return text === 'now' ? 'just started' : `up ${text.replace(/ ago$/, '')}`;
}
