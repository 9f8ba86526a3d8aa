import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyFailure, renderFailure } from '../../src/cli/failure.js';
import { withUpstreamNames } from '../../src/cli/portable-definition.js';
import { DaemonClient } from '../../src/client/daemon-client.js';
import Add from '../../src/commands/add.js';
import Export, { type JobExport } from '../../src/commands/export.js';
import type { ImportReport } from '../../src/commands/import/crontab.js';
import ImportJson from '../../src/commands/import/json.js';
import type { ShownJob } from '../../src/commands/show.js';
import Show from '../../src/commands/show.js';
import Update from '../../src/commands/update.js';
import { JOB_STATUSES } from '../../src/core/job-status.js';
import { jobDefinitionSchema, type Job } from '../../src/core/job.js';
import { runCommand } from '../cli/command-harness.js';
import { sched, useDaemons } from '../support/sched-harness.js';
import { costlyRuns } from './support/fuzz-runs.js';
import { addArgv, jobName, updateArgv } from './support/job-argv.js';

const ANSI_ESCAPE = new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g');

describe('sched add and sched update, given random argv', () => {
  const daemons = useDaemons(afterAll);
  let home: string;
  let client: DaemonClient;
  let serial = 0;
  const nextSerial = () => ++serial;

  beforeAll(async () => {
    home = daemons.home();
    await daemons.start(home);
    client = await DaemonClient.connect(path.join(home, 'sched.sock'));
    for (const name of ['keep', 'other'])
      await client.call('job.add', { input: { name, cron: '0 3 1 1 *', argv: ['true'] } });
  });

  afterAll(() => client?.close());

  /** Everything a refused command could have changed. */
  const stored = async () => ({
    jobs: await client.call('job.list', { limit: 1000, states: [...JOB_STATUSES] }),
    audit: await client.call('audit.list', { limit: 1000 }),
  });

  /** Runs the command in this process as `sched` would, against the live daemon. */
  async function run(
    command: typeof Add | typeof Update,
    argv: string[],
  ): Promise<{ ok: true; job: Job } | { ok: false; exitCode: number; printed: string; kind: string }> {
    try {
      // --json first: after "--" it would belong to the job's command.
      return { ok: true, job: (await runCommand(command, ['--json', ...argv], client)) as Job };
    } catch (error) {
      // What SchedCommand.catch does with it: classify, print, exit with the failure's code.
      const failure = classifyFailure(error, `sched ${command === Add ? 'add' : 'update'}`);
      const printed = renderFailure(failure).replace(ANSI_ESCAPE, '');
      return { ok: false, exitCode: failure.exitCode, printed, kind: failure.kind };
    }
  }

  function expectUserError(outcome: { exitCode: number; printed: string; kind: string }): void {
    expect(outcome, outcome.printed).toMatchObject({ kind: 'user' });
    expect([2, 3, 4]).toContain(outcome.exitCode);
    expect(outcome.printed).toMatch(/^Error: \S/);
    expect(outcome.printed).not.toMatch(/\n\s+at /);
  }

  /** `show --json` gives the stored job, `export` its definition, and importing that file finds it unchanged. */
  async function expectRoundTrip(job: Job): Promise<void> {
    const shown = (await runCommand(Show, [job.id, '--json'], client)) as ShownJob;
    expect(shown.job).toMatchObject({ id: job.id, name: job.name, version: job.version });
    const definition = jobDefinitionSchema.parse(shown.job);
    expect(definition).toEqual(jobDefinitionSchema.parse(job));

    const exported = (await runCommand(Export, ['--json'], client)) as JobExport;
    const live = await client.call('job.list', { limit: 1000 });
    const names = new Map(live.items.map((item) => [item.id, item.name]));
    const portable = withUpstreamNames(definition, (id) => names.get(id)).definition;
    expect(exported.jobs.find((item) => item.name === job.name)).toEqual(portable);

    const file = path.join(home, 'export.json');
    fs.writeFileSync(file, JSON.stringify(exported));
    const reimport = (await runCommand(ImportJson, [file, '--dry-run', '--json'], client)) as ImportReport;
    expect(reimport.jobs.map((item) => item.action)).toEqual(exported.jobs.map(() => 'unchanged'));
    // Out of the way, so the export of later runs stays small.
    await client.call('job.cancel', { ref: job.id, force: true });
  }

  it('given sched add with any flags, then it is refused with exit 2, 3 or 4 and stores nothing, or the job round-trips through show and export', async () => {
    await fc.assert(
      fc.asyncProperty(jobName(nextSerial), addArgv(nextSerial), async (name, argv) => {
        const before = await stored();
        const outcome = await run(Add, [name, ...argv]);
        if (outcome.ok) return expectRoundTrip(outcome.job);
        expectUserError(outcome);
        expect(await stored()).toEqual(before);
      }),
      { numRuns: costlyRuns(30) },
    );
  });

  it('given sched update of a job with any flags, then it is refused with exit 2, 3 or 4 and changes nothing, or the job round-trips through show and export', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('existing', 'ghost-job'), updateArgv, async (which, argv) => {
        const target = await client.call('job.add', {
          input: { name: `upd-${nextSerial()}`, every: '1h', argv: ['true'] },
        });
        const before = await stored();
        const outcome = await run(Update, [which === 'existing' ? target.name : which, ...argv]);
        if (outcome.ok) return expectRoundTrip(outcome.job);
        expectUserError(outcome);
        expect(await stored()).toEqual(before);
        await client.call('job.cancel', { ref: target.id, force: true });
      }),
      { numRuns: costlyRuns(30) },
    );
  });

  it('given the real sched binary and any add flags, then it exits 0, 2, 3 or 4, and a refusal prints an Error line and no stack', async () => {
    await fc.assert(
      fc.asyncProperty(jobName(nextSerial), addArgv(nextSerial), async (name, argv) => {
        const before = await stored();
        const added = await sched(home, ['add', name, ...argv]);
        expect([0, 2, 3, 4], added.stderr).toContain(added.code);
        if (added.code === 0) {
          const shown = await sched(home, ['show', name, '--json']);
          expect(shown.json.job.name).toBe(name);
          await client.call('job.cancel', { ref: name, force: true });
          return;
        }
        expect(added.stderr).toMatch(/^Error: \S/m);
        expect(added.stderr).not.toMatch(/\n\s+at /);
        expect(await stored()).toEqual(before);
      }),
      // Each run starts node twice (~200 ms each on an idle machine): few in the suite, many under npm run fuzz.
      { numRuns: costlyRuns(3) },
    );
  });
});
