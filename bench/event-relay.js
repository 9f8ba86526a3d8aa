// 10. Event relay (issue #11): from a run's start on one node to its `run:started` event on another node's
//     event stream, what `sched watch` on that node prints. Daemons on one PostgreSQL database fire N jobs
//     `every 1s` (N fires/s, as federation-capacity.js fires them: lib/federation-window.js); a client on
//     daemon A subscribes to `run:started` as `sched watch --type run:started` does, and for every event of
//     a run that another node started, the delay is when it arrived here less the run's start as that node
//     recorded it (`data.at`; one machine, one clock). Each node stores its job and run events in the store's
//     outbox in the transaction of the change and announces the id on commit; A reads the rows after the
//     last id it saw on each announcement and publishes the other nodes' ones.
//     Reports relayed events per second and the delay's p50/p99/max over the window, and how many runs
//     other nodes started in the window that A never showed. Issue #11's target: p99 under 100 ms at
//     1,000 fires/s.
// Knobs: BENCH_RELAY_FIRES (fires/s, 1000; quick 300), BENCH_RELAY_DAEMONS (2), BENCH_RELAY_WINDOW_S (20;
//        quick 10), BENCH_RELAY_LEAD_S (20), BENCH_RELAY_WARMUP_S (5).
import { goalById } from './lib/goals.js';
import { knob } from './lib/config.js';
import { measureFederationWindow, windowNotes } from './lib/federation-window.js';
import { startHttpTarget } from './lib/http-target.js';
import { startPostgres } from './lib/postgres-server.js';
import { emitResult, progress } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { subscribe } from '../dist/client/event-subscription.js';

const FIRES = knob('RELAY_FIRES', 1000, 300);
const DAEMONS = knob('RELAY_DAEMONS', 2);
const WINDOW_MS = knob('RELAY_WINDOW_S', 20, 10) * 1000;
const LEAD_MS = knob('RELAY_LEAD_S', 20) * 1000;
const WARMUP_MS = knob('RELAY_WARMUP_S', 5) * 1000;
const TARGET_P99_MS = goalById('event-relay-p99').target;

const count = (value) => value.toLocaleString('en-US');

/** Subscribes to daemon A's run:started events and keeps the delay of each relayed one in the window. */
async function watchRelayedStarts([watched], { from, to }) {
  const client = await watched.connect();
  const ownNode = (await client.call('cluster.status', {})).node;
  const events = subscribe(client, { types: ['run:started'] });
  await events.ready;
  const delays = [];
  const relayed = new Set();
  let foreign = 0;
  const reading = (async () => {
    for await (const event of events) {
      const arrived = Date.now();
      if (event.node === ownNode || event.node === undefined) continue;
      foreign += 1;
      if (event.data.at < from || event.data.at >= to) continue;
      delays.push(arrived - event.data.at);
      relayed.add(event.data.runId);
    }
  })();
  return {
    stop: async () => {
      await events.return();
      client.close();
      await reading;
      return { ownNode, delays, relayed, foreign };
    },
  };
}

let failed = null;
let postgres = null;
let target = null;
let result = null;
try {
  target = await startHttpTarget();
  progress('event relay: starting PostgreSQL');
  postgres = await startPostgres('relay-pg');
  result = await measureFederationWindow(postgres, target, {
    label: `event relay, ${DAEMONS} daemons, ${count(FIRES)} fires/s`,
    database: `relay_${FIRES}`,
    daemonCount: DAEMONS,
    jobCount: FIRES,
    intervalMs: 1_000,
    windowMs: WINDOW_MS,
    leadMs: LEAD_MS,
    warmupMs: WARMUP_MS,
    observe: watchRelayedStarts,
  });
} catch (error) {
  failed = error;
} finally {
  await postgres?.stop();
  await target?.close();
}

if (result) {
  const { observed, fires } = result;
  const delay = summarize(observed.delays);
  // Runs another node started in the window, by the store's records: each should have been shown on A.
  const startedElsewhere = fires.perNode
    .filter((node) => node.node !== observed.ownNode)
    .reduce((sum, node) => sum + node.runsInWindow, 0);
  const verdict = delay.p99 < TARGET_P99_MS ? 'met' : 'not met';
  const rows = [
    {
      benchmark: 'event-relay',
      scenario: `${DAEMONS} daemons, ${count(FIRES)} jobs every 1 s: run start on B → run:started on A`,
      n: delay.n,
      rate: delay.n / (WINDOW_MS / 1000),
      rateUnit: 'relayed/s',
      p50: delay.p50,
      p99: delay.p99,
      max: delay.max,
      notes: [
        `${count(observed.relayed.size)} of the ~${count(startedElsewhere)} runs other nodes fired in the window shown on A`,
        `target p99 < ${TARGET_P99_MS} ms ${verdict}`,
        `fires/s ${fires.firesPerSecond.toFixed(0)}`,
        ...windowNotes(result),
      ].join(', '),
      // The goal is at 1,000 fires/s; a quick run's fewer fires measure something else.
      goals: FIRES >= 1_000 ? { 'event-relay-p99': delay.p99 } : undefined,
    },
  ];
  emitResult({
    benchmark:
      "event relay: a run started on one node → its run:started event on another node's stream (what sched watch prints there)",
    rows,
    figures: {
      fires: FIRES,
      daemons: DAEMONS,
      windowMs: WINDOW_MS,
      delayMs: delay,
      relayedRuns: observed.relayed.size,
      startedElsewhereInWindow: startedElsewhere,
      targetP99Ms: TARGET_P99_MS,
      window: { ...result, observed: undefined },
    },
  });
}
if (failed) {
  console.error(failed);
  process.exit(1);
}
