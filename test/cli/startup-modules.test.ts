import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, sched, useDaemons } from '../support/sched-harness.js';

// Start-up is most of what an everyday command costs, and these packages were most of its own share:
// validation (zod), zone arithmetic (luxon) and cron maths (cron-parser) are the daemon's work, not
// showing what it answers.
const HEAVY_PACKAGES = ['zod', 'luxon', 'cron-parser'];
const tracer = pathToFileURL(path.join(repoRoot, 'test/support/module-trace.mjs')).href;

describe('everyday commands load only what they need', () => {
  // One daemon for the file: each case only reads what these commands load.
  const { home, start } = useDaemons(afterAll);
  let dir = '';

  beforeAll(async () => {
    dir = home();
    await start(dir);
    for (const schedule of [
      ['nightly', '--every', '1h'],
      ['weekdays', '--cron', '0 9 * * 1-5'],
      ['once', '--at', '2099-01-01T09:00:00Z'],
    ]) {
      expect((await sched(dir, ['add', ...schedule, '--', 'true'])).code).toBe(0);
    }
  });

  async function modulesLoadedBy(args: string[]): Promise<string[]> {
    const traceFile = path.join(dir, `modules-${args.join('-')}.txt`);
    const result = await sched(dir, args, {
      env: { NODE_OPTIONS: `--import ${tracer}`, SCHED_TEST_MODULE_TRACE: traceFile },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return fs.readFileSync(traceFile, 'utf8').split('\n').filter(Boolean);
  }

  const heavy = (modules: string[]) =>
    modules.filter((url) => HEAVY_PACKAGES.some((name) => url.includes(`/node_modules/${name}/`)));

  it.each([
    ['show', ['show', 'nightly']],
    ['show of a cron job', ['show', 'weekdays']],
    ['show of a one-shot job', ['show', 'once']],
    ['ls', ['ls']],
    ['history', ['history', 'nightly']],
    ['trigger', ['trigger', 'nightly']],
    ['add', ['add', 'another', '--every', '1h', '--', 'true']],
  ])(
    'given a daemon with jobs, when sched %s runs, then it loads none of zod, luxon and cron-parser',
    async (_, args) => {
      const modules = await modulesLoadedBy(args);

      expect(modules.some((url) => url.endsWith(`/dist/commands/${args[0]}.js`))).toBe(true);
      expect(heavy(modules)).toEqual([]);
    },
  );

  // The bundles build chalk only when colour is on (scripts/chalk-on-demand.js); both ways must read alike.
  it('given colour forced or off, when sched show runs, then the state is coloured as chalk colours it, or plain', async () => {
    const coloured = await sched(dir, ['show', 'nightly'], { env: { FORCE_COLOR: '1' } });
    const plain = await sched(dir, ['show', 'nightly']);

    expect(coloured.stdout).toContain('\u001b[32mactive\u001b[39m');
    expect(plain.stdout).toMatch(/^State: +active$/m);
  });

  it('given colour forced, when a command fails, then its error is red and bold as chalk writes it', async () => {
    const failed = await sched(dir, ['show', 'no-such-job'], { env: { FORCE_COLOR: '1' } });

    expect(failed.code).not.toBe(0);
    expect(failed.stderr.startsWith('\u001b[31m\u001b[1mError:\u001b[22m\u001b[39m ')).toBe(true);
  });
});
