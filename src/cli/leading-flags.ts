/** The flags every command takes that say where the daemon is: written first, they name no command. */
const WHERE_FLAGS = new Set(['--remote', '--token-file', '--ca-file']);

/**
 * `sched --remote URL ls` as `sched ls --remote URL`: oclif takes the first word that is not a flag for the
 * command, so a URL written before it was taken for one ("Unknown command https"). The flags go before a
 * `--`, after which everything belongs to the job's command.
 */
export function commandFirst(args: readonly string[]): string[] {
  const leading: string[] = [];
  let index = 0;
  while (index < args.length && WHERE_FLAGS.has(args[index]!.split('=')[0]!)) {
    const width = args[index]!.includes('=') ? 1 : 2;
    leading.push(...args.slice(index, index + width));
    index += width;
  }
  if (leading.length === 0) return [...args];
  const rest = args.slice(index);
  const separator = rest.indexOf('--');
  return separator === -1
    ? [...rest, ...leading]
    : [...rest.slice(0, separator), ...leading, ...rest.slice(separator)];
}
