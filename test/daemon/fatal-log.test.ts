import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/sched-harness.js';
import { childEnv } from '../support/child-env.js';

const FATAL_LOG = pathToFileURL(path.join(repoRoot, 'dist/daemon/observability/fatal-log.js')).href;

/** Runs a small Node program that installs the fatal log and then fails as `failure` says. */
function dieWith(failure: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const program = `
    const { logFatalErrors } = await import(${JSON.stringify(FATAL_LOG)});
    logFatalErrors((line) => process.stdout.write(line + '\\n'));
    ${failure}`;
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '-e', program],
      { timeout: 30_000, env: childEnv() },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

function crashLine(stdout: string): Record<string, unknown> | undefined {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((entry) => entry.event === 'daemon:crashed');
}

describe('a daemon ending on an error nobody handled', () => {
  it('logs why for an uncaught exception, and still ends with its stack on stderr', async () => {
    const result = await dieWith(`setTimeout(() => { throw new Error('boom in a timer'); }, 10);`);

    expect(result.code).not.toBe(0);
    const line = crashLine(result.stdout);
    expect(line).toMatchObject({ level: 'fatal', origin: 'uncaughtException' });
    expect(JSON.stringify(line?.err)).toContain('boom in a timer');
    expect(result.stderr).toContain('boom in a timer');
  });

  it('logs why for an unhandled rejection, and still ends', async () => {
    const result = await dieWith(`Promise.reject(new Error('nobody awaited this'));`);

    expect(result.code).not.toBe(0);
    const line = crashLine(result.stdout);
    expect(line).toMatchObject({ level: 'fatal', origin: 'unhandledRejection' });
    expect(JSON.stringify(line?.err)).toContain('nobody awaited this');
  });
});
