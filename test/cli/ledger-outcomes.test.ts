import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sched, useDaemons, waitFor, type RunningDaemon } from '../support/sched-harness.js';

interface Entry {
  scheduledFor: number;
  outcome: string;
  reason: string;
  runIds: string[];
  finalState: string | null;
  waiting?: boolean;
}

interface RunRow {
  id: string;
  state: string;
  scheduledFor: number;
}

describe('the occurrence ledger of runs that overlap, through the real CLI and daemon', () => {
  const daemons = useDaemons(afterAll);
  let home: string;
  let daemon: RunningDaemon;

  beforeAll(async () => {
    home = daemons.home();
    // A short grace, so the long runs these tests leave behind are killed when the daemon stops.
    daemon = await daemons.start(home, ['--grace', '1s']);
  });
  afterAll(async () => {
    await daemon.stop('SIGTERM');
  });

  const entriesOf = async (job: string): Promise<Entry[]> =>
    (await sched(home, ['history', job, '--all-occurrences', '--json'])).json.items;
  const runsOf = async (job: string): Promise<RunRow[]> =>
    (await sched(home, ['history', job, '--json'])).json.items;

  it('given a run still running when its job is resumed, when the instant missed while paused is caught up, then it is recorded skipped-overlap with the running run named', async () => {
    // Given a job whose first run is still running
    expect((await sched(home, ['add', 'cu', '--every', '2s', '--', 'sleep', '25'])).code).toBe(0);
    const first = await waitFor(
      async () => (await runsOf('cu')).find((run) => run.state === 'running'),
      30_000,
    );
    // When it is paused until an instant has fallen due, then resumed
    const paused = await sched(home, ['pause', 'cu', '--json']);
    expect(paused.code).toBe(0);
    const pausedAt: number = paused.json.updatedAt;
    await waitFor(async () => Date.now() > pausedAt + 3_000, 10_000);
    const resumed = await sched(home, ['resume', 'cu', '--json']);
    expect(resumed.code).toBe(0);
    const resumedAt: number = resumed.json.updatedAt;

    // Then (the resume decided the catch-up before it answered) the instants that fell due while paused hold no
    // `ran` without a run, and the caught-up one was skipped for the overlap
    const whilePaused = (await entriesOf('cu')).filter(
      (entry) => entry.scheduledFor > pausedAt && entry.scheduledFor <= resumedAt,
    );
    expect(whilePaused.filter((entry) => entry.outcome === 'ran' && entry.runIds.length === 0)).toEqual([]);
    const skipped = whilePaused.find((entry) => entry.outcome === 'skipped-overlap')!;
    expect(skipped.reason).toBe(`run ${first.id} was still running (--concurrency forbid)`);
    expect(skipped.runIds).toEqual([]);
    expect((await runsOf('cu')).filter((run) => run.scheduledFor === skipped.scheduledFor)).toEqual([]);
  }, 90_000);

  it('given --concurrency queue and a run still running, when the next instant waits for it, then the ledger shows its run waiting, not running', async () => {
    // Given a queued run waiting behind a running one
    expect(
      (await sched(home, ['add', 'q', '--every', '2s', '--concurrency', 'queue', '--', 'sleep', '25'])).code,
    ).toBe(0);
    const queued = await waitFor(
      async () => (await runsOf('q')).find((run) => run.state === 'scheduled'),
      30_000,
    );

    // When the ledger is listed, then that instant's run is shown waiting
    const entry = (await entriesOf('q')).find((candidate) => candidate.runIds.includes(queued.id))!;
    expect(entry).toMatchObject({ outcome: 'ran', finalState: null, waiting: true });
    const table = (await sched(home, ['history', 'q', '--all-occurrences'])).stdout;
    // (Later instants skipped while it waits name it in their reason; its own row has it in RUNS with a state.)
    expect(table).toMatch(new RegExp(`^\\S+ \\S+ UTC +ran +${queued.id} waiting `, 'm'));
    expect(table).not.toContain(`${queued.id} running`);

    // And sched why says it has not started
    const why = await sched(home, ['why', 'q', '--at', new Date(queued.scheduledFor).toISOString()]);
    expect(why.code).toBe(0);
    expect(why.stdout).toContain('is waiting to start');
    expect(why.stdout).not.toMatch(/still running|has been running/);
  }, 90_000);
});
