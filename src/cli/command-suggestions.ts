import { editDistance } from '../core/edit-distance.js';

const MAX_SUGGESTIONS = 3;

/**
 * The commands a mistyped one most likely meant, nearest first: those a few edits away (about one per three
 * letters typed, at most three) and those it begins. Only ever shown; a suggestion is never run.
 */
export function nearestCommands(typed: string, commands: readonly string[]): string[] {
  const word = typed.trim().toLowerCase();
  if (word === '') return [];
  const allowed = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  const near = commands
    .map((command) => ({ command, distance: editDistance(word, command) }))
    .filter(({ command, distance }) => distance <= allowed || (word.length >= 2 && command.startsWith(word)))
    .sort((a, b) => a.distance - b.distance || a.command.localeCompare(b.command));
  // Past the nearest, only those about as near: `daemon stats` means `daemon status`, not `daemon stop`.
  const best = near[0]?.distance ?? 0;
  return near
    .filter(({ command, distance }) => distance <= best + 1 || command.startsWith(word))
    .slice(0, MAX_SUGGESTIONS)
    .map(({ command }) => command);
}

/** `Did you mean \`sched ls\`?`, `Did you mean \`sched pause\` or \`sched resume\`?`; empty when nothing is near. */
export function suggestionText(bin: string, suggestions: readonly string[]): string {
  if (suggestions.length === 0) return '';
  const quoted = suggestions.map((command) => `\`${bin} ${command}\``);
  const listed = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return `Did you mean ${listed}?`;
}
