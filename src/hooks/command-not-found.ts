import type { Hook } from '@oclif/core';
import { nearestCommands, suggestionText } from '../cli/command-suggestions.js';
import { classifyFailure, renderFailure, toErrorJson } from '../cli/failure.js';
import { SchedError } from '../core/errors.js';

/**
 * An unknown command is refused, never guessed at: a typo can sit a letter or two from a command that cancels
 * jobs or stops the daemon (`sched run cleanup` is near `sched cancel cleanup`), so the nearest commands are
 * only named, nothing is asked and nothing runs.
 */
const commandNotFound: Hook<'command_not_found'> = async function (options) {
  const { config } = options;
  const argv = [options.id, ...(options.argv ?? [])];
  const typed = typedCommand(argv, (id) => config.findTopic(id) !== undefined) ?? options.id;
  const visible = config.commands.filter((command) => !command.hidden).map((command) => command.id);
  const suggestions = nearestCommands(
    typed,
    visible.map((id) => id.replaceAll(':', ' ')),
  );
  const help = `Run \`${config.bin} help\` to list the commands.`;
  const error = new SchedError('UNKNOWN_COMMAND', `Unknown command "${typed}".`, {
    hint: [suggestionText(config.bin, suggestions), help].filter((part) => part !== '').join(' '),
    details: { command: typed, suggestions },
  });
  const failure = classifyFailure(error, config.bin);
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: toErrorJson(failure, new Date()) }, null, 2)}\n`);
  } else {
    process.stderr.write(renderFailure(failure));
  }
  this.exit(failure.exitCode);
};

/**
 * The command words as typed: oclif hands over everything up to the first flag joined with `:` (`run:cleanup`
 * for `sched run cleanup`), so only the words that name a topic and the one after it are the command.
 */
function typedCommand(argv: readonly string[], isTopic: (id: string) => boolean): string | undefined {
  const words = argv.flatMap((arg) => (arg.startsWith('-') ? [] : arg.split(':')));
  let end = 1;
  while (end < words.length && isTopic(words.slice(0, end).join(':'))) end += 1;
  return words.length === 0 ? undefined : words.slice(0, end).join(' ');
}

export default commandNotFound;
