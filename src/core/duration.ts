import { SchedError } from './errors.js';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;

/** Parses `30s`, `5m`, `1h30m`, `2d`, `250ms` into milliseconds. */
export function parseDuration(text: string, what = 'duration'): number {
  const trimmed = text.trim();
  let total = 0;
  let consumed = 0;
  PART.lastIndex = 0;
  for (let match = PART.exec(trimmed); match; match = PART.exec(trimmed)) {
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    consumed = PART.lastIndex;
  }
  if (trimmed.length === 0 || consumed !== trimmed.length || !Number.isFinite(total)) {
    throw new SchedError('VALIDATION_FAILED', `Invalid ${what} "${text}".`, {
      hint: 'Write it as a number and a unit, such as 30s, 5m, 1h30m or 2d (units: ms, s, m, h, d, w).',
      details: { value: text },
    });
  }
  return Math.round(total);
}

/** Formats milliseconds compactly: 90_000 -> "1m30s". */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1_000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return parts.join('');
}
