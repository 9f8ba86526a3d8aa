import type { DashState } from '../state/types.js';
import type { Tone } from '../theme.js';

/** How long the result of an action stays in the footer. */
export const FLASH_MS = 5_000;

/** Key hints by view, most useful first; as many as fit are shown, and help and quit always. */
const HINTS = {
  main: [
    '↑↓ move',
    '⏎ open',
    '/ filter',
    't trigger',
    'p pause',
    'x kill',
    // Ahead of cancel, which asks before it acts: at 80 columns only one of them fits.
    'n nodes',
    'c cancel',
    's sort',
    'Tab runs',
  ],
  job: ['↑↓ runs', '⏎ output', 'Esc back', 't trigger', 'p pause/resume', 'x kill', 'c cancel', 'n nodes'],
  run: ['↑↓ scroll', 'G follow', 'g top', 'Esc back', 'x kill', 'PgUp PgDn', 'n nodes'],
  cluster: ['↑↓ scroll', 'Esc or n back'],
} as const;
const ALWAYS = ['? help', 'q quit'];

export function fitHints(hints: readonly string[], width: number): string {
  const shown: string[] = [];
  const length = (items: string[]) => [...items, ...ALWAYS].join('  ').length;
  for (const hint of hints) if (length([...shown, hint]) <= width) shown.push(hint);
  return [...shown, ...ALWAYS].join('  ');
}

/** The footer line for a state: the most pressing of prompt, message and key hints. */
export function footer(state: DashState, width: number): { text: string; tone: Tone; quiet: boolean } {
  if (state.confirm)
    return {
      text: `Cancel job ${state.confirm.name} for good? It stops firing; its history stays. y to cancel, any other key keeps it`,
      tone: 'warn',
      quiet: false,
    };
  if (state.editingFilter)
    return { text: `/ ${state.filter}▏  Enter keeps the filter, Esc clears it`, tone: 'plain', quiet: false };
  if (state.flash && state.now - state.flash.at < FLASH_MS)
    return { text: state.flash.text, tone: state.flash.tone === 'error' ? 'bad' : 'plain', quiet: false };
  const text = state.help ? 'any key returns  q quit' : fitHints(HINTS[state.view.kind], width);
  return { text, tone: 'plain', quiet: true };
}
