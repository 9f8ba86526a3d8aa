import { execFileSync, spawn } from 'node:child_process';
import { Config } from '@oclif/core';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, removeHome, repoRoot, sched, schedBin } from '../support/sched-harness.js';

const home = makeHome('sched-ops-help-');
afterAll(() => removeHome(home));

// Every command oclif knows, the plugins' included, as the words a user types. `help` is oclif's own
// help command: it is what prints the examples of the others.
const config = await Config.load(repoRoot);
const commands = config.commands
  .filter((command) => !command.hidden && command.id !== 'help')
  .map((command) => command.id.split(':'));

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs sched in a pseudo-terminal (script(1)), answering `answer` once `prompt` appears. */
function inTerminal(
  args: string[],
  prompt: string,
  answer: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const command = [process.execPath, schedBin, ...args].map((word) => `'${word}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, SCHED_HOME: home, NO_COLOR: '1' },
    });
    let output = '';
    let answered = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!answered && output.includes(prompt)) {
        answered = true;
        child.stdin.write(answer);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('every command', () => {
  it('is registered, plugins included', () => {
    const ids = commands.map((words) => words.join(' '));
    expect(ids).toEqual(
      expect.arrayContaining([
        'autocomplete',
        'config show',
        'daemon install',
        'daemon stop',
        'doctor',
        'export',
        'import crontab',
        'import json',
      ]),
    );
  });

  it.each(commands.map((words) => [words.join(' '), words]))(
    'has examples in its help: %s',
    async (_id, words) => {
      const result = await sched(home, [...(words as string[]), '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^EXAMPLES$/m);
    },
  );
});

describe('a mistyped command', () => {
  it('fails with exit 127 and points at the help when there is no terminal to ask on', async () => {
    // plugin-not-found asks "Did you mean …?" only on a terminal; piped, it must not wait for an answer.
    const result = await sched(home, ['lss']);
    expect(result.code).toBe(127);
    expect(result.stderr).toContain('lss is not a sched command.');
  });

  const viaTerminal = hasScript();
  it(`suggests the nearest command (${viaTerminal ? 'in a pseudo-terminal' : 'script(1) is missing: without a terminal'})`, async () => {
    if (!viaTerminal) {
      console.info('script(1) is missing: checked the non-interactive answer only');
      const result = await sched(home, ['lss']);
      expect(result.stderr).toContain('Run sched help');
      return;
    }
    const [declined, accepted] = await Promise.all([
      inTerminal(['lss'], 'Did you mean ls?', 'n\r'),
      inTerminal(['lss'], 'Did you mean ls?', 'y\r'),
    ]);
    expect(declined.output).toContain('Did you mean ls?');
    expect(declined.code).toBe(127);
    // Accepted, `sched ls` ran: with no daemon in this home it says so.
    expect(accepted.output).toContain('The sched daemon is not running');
    expect(accepted.code).toBe(7);
  });
});
