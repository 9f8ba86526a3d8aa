import { describe, expect, it } from 'vitest';
import { fit, lastResultCell, nextRunCell, sparkline, uptime } from '../../src/tui/cells.js';
import { themeFromEnv, toneColour } from '../../src/tui/theme.js';
import { makeJob, makeRun, NOW } from './fixtures.js';

const job = makeJob({ name: 'nightly' });

describe('cells', () => {
  it('given text longer than its column, when fitted, then it is cut with an ellipsis to the exact width', () => {
    expect(fit('at 09:00 on weekdays (Europe/Berlin)', 12)).toBe('at 09:00 on…');
    expect(fit('in 4m', 8, 'right')).toBe('   in 4m');
  });

  it('given a next run, when counted down, then it shows seconds under a minute and minutes above', () => {
    expect(nextRunCell({ ...job, nextRunAt: NOW + 12_400 }, NOW).text).toBe('in 12s');
    expect(nextRunCell({ ...job, nextRunAt: NOW + 4 * 60_000 + 5_000 }, NOW).text).toBe('in 4m');
    expect(nextRunCell({ ...job, state: 'paused', nextRunAt: null }, NOW)).toEqual({
      text: '‖ paused',
      tone: 'warn',
    });
  });

  it('given a one-shot job whose instant has fired, when its next run is shown, then it says done', () => {
    const fired = { ...job, schedule: { kind: 'at' as const, at: NOW - 60_000 }, nextRunAt: null };
    expect(nextRunCell(fired, NOW)).toEqual({ text: '✓ done', tone: 'plain' });
  });

  it('given latest runs, when shown as the last result, then glyph and duration say how it went', () => {
    expect(lastResultCell(makeRun(job), NOW)).toEqual({ text: '✓ 2s', tone: 'ok' });
    expect(lastResultCell(makeRun(job, { state: 'failed' }), NOW)).toEqual({ text: '✗ 2s', tone: 'bad' });
    expect(lastResultCell(makeRun(job, { state: 'running', finishedAt: null }), NOW).text).toBe('● 1m');
    expect(lastResultCell(undefined, NOW).text).toBe('-');
  });

  it('given runs newest first, when drawn as a sparkline, then the oldest is on the left and failures are low bars', () => {
    const runs = [makeRun(job, { state: 'failed' }), makeRun(job), makeRun(job)];
    expect(
      sparkline(runs, 5)
        .map((cell) => cell.text)
        .join(''),
    ).toBe('▇▇▁  ');
    expect(sparkline(runs, 5)[0]).toEqual({ text: '▇▇', tone: 'ok' });
  });

  it('given a daemon start, when shown, then uptime reads like a countdown', () => {
    expect(uptime(NOW - 3 * 3_600_000 - 120_000, NOW)).toBe('up 3h 2m');
  });

  it('given NO_COLOR, when a tone is coloured, then there is no colour', () => {
    expect(toneColour(themeFromEnv({ NO_COLOR: '1' }), 'bad')).toBeUndefined();
    expect(toneColour(themeFromEnv({}), 'bad')).toBe('red');
  });
});
