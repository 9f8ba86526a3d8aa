import { summarize } from './stats.js';

/**
 * Matches the runs a daemon recorded against the instants it should have fired.
 *   expected: [{ jobId, scheduledFor }]    runs: rows from readRuns()
 * Only runs of the given triggers count as fires: by default `schedule`, so an instant caught up after the
 * misfire threshold (a `catchup` run) counts as missed; with `catchup` too it counts as that late.
 * Lateness is run.createdAt − run.scheduledFor: createdAt is the daemon's clock when it fired the run.
 * Start lag is run.startedAt − run.scheduledFor (what "started" means is the daemon's choice: when the
 * process was spawned, or when the run was claimed just before). Finish lag is run.finishedAt −
 * run.scheduledFor: for a command that does nothing (`true`) it is the whole way from due to done, so it
 * shows an executor that falls behind whatever the daemon calls started.
 * Only runs of the expected jobs with scheduledFor inside [from, to] are looked at; one that matches no
 * expected instant counts as `unexpected`.
 */
export function analyzeFires(
  expected,
  runs,
  { from = -Infinity, to = Infinity, triggers = ['schedule'] } = {},
) {
  const wanted = new Set(expected.map(keyOf));
  const jobIds = new Set(expected.map((instant) => instant.jobId));
  const fired = new Map();
  let unexpected = 0;
  for (const run of runs) {
    if (!triggers.includes(run.trigger) || !jobIds.has(run.jobId)) continue;
    if (run.scheduledFor < from || run.scheduledFor > to) continue;
    if (wanted.has(keyOf(run))) fired.set(keyOf(run), run);
    else unexpected += 1;
  }
  const lateness = [];
  const startLag = [];
  const finishLag = [];
  let early = 0;
  for (const run of fired.values()) {
    const late = run.createdAt - run.scheduledFor;
    if (late < 0) early += 1;
    lateness.push(late);
    if (run.startedAt !== null) startLag.push(run.startedAt - run.scheduledFor);
    if (run.finishedAt !== null) finishLag.push(run.finishedAt - run.scheduledFor);
  }
  return {
    expected: expected.length,
    fired: fired.size,
    missed: expected.length - fired.size,
    early,
    unexpected,
    latenessMs: summarize(lateness),
    startLagMs: summarize(startLag),
    finishLagMs: summarize(finishLag),
    unfinished: fired.size - finishLag.length,
  };
}

function keyOf(instant) {
  return `${instant.jobId}@${instant.scheduledFor}`;
}

/**
 * Second by second over [from, to): how many runs were due, their median lateness and median finish lag.
 * Shows whether a backlog is building (the figures climb) or steady.
 */
export function secondBySecond(runs, from, to) {
  const seconds = [];
  for (let start = from; start < to; start += 1000) {
    const due = runs.filter((run) => run.scheduledFor >= start && run.scheduledFor < start + 1000);
    const finished = due.filter((run) => run.finishedAt !== null);
    seconds.push({
      second: (start - from) / 1000,
      due: due.length,
      latenessP50Ms: summarize(due.map((run) => run.createdAt - run.scheduledFor)).p50,
      finished: finished.length,
      finishLagP50Ms: summarize(finished.map((run) => run.finishedAt - run.scheduledFor)).p50,
    });
  }
  return seconds;
}

/** "early 0, missed 0" plus anything else worth a look. */
export function fireNotes(analysis) {
  const notes = [`early ${analysis.early}`, `missed ${analysis.missed}/${analysis.expected}`];
  if (analysis.unexpected) notes.push(`unexpected ${analysis.unexpected}`);
  const { n, p50, p99 } = analysis.finishLagMs;
  notes.push(n ? `done after p50 ${ms(p50)}, p99 ${ms(p99)}` : 'none finished');
  if (analysis.unfinished) notes.push(`${analysis.unfinished} unfinished at the stop`);
  return notes.join(', ');
}

function ms(value) {
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}
