// 6. Dashboard redraw latency: the real `sched dash` (dist/tui, Ink and React, its daemon backend and its
//    screen painter) runs in this process against a daemon holding BENCH_DASH_JOBS jobs (default 1,000),
//    drawing into a recording stand-in for a 120x40 terminal. The benchmark changes things over the
//    socket and times when the first frame showing the change is written:
//      - job added: `job.add` of a job that sorts first, so its row appears at the top of the table;
//      - job paused/resumed: `job.pause` / `job.resume` of a job on screen, so its row changes in place.
//    "event → frame" counts from when the daemon's event reached this process (a second subscriber here
//    sees it; both sockets are read by the same event loop) to the frame; "request → frame" from sending
//    the request, so it includes the daemon's commit and fsync. Probes are spaced 100–300 ms apart.
// Knobs: BENCH_DASH_JOBS (store size), BENCH_DASH_PROBES (per scenario).
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { subscribe } from '../dist/client/event-subscription.js';
import { knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { makeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { farFutureJobs, writeJobs } from './lib/store-fill.js';

// As `sched dash` does before it loads React: the production build.
process.env.NODE_ENV ??= 'production';
const { runDashboard } = await import('../dist/tui/run-dashboard.js');

const JOBS = knob('DASH_JOBS', 1_000, 1_000);
const PROBES = knob('DASH_PROBES', 60, 15);
const FRAME_TIMEOUT_MS = 5_000;

/** A 120x40 terminal that keeps every write with the time it was made. */
class RecordingTerminal extends EventEmitter {
  columns = 120;
  rows = 40;
  isTTY = true;
  writes = [];
  write(data) {
    this.writes.push({ at: performance.now(), data: String(data) });
    return true;
  }
  /** The first write at or after `since` that passes `check`, waiting up to FRAME_TIMEOUT_MS. */
  async frameAfter(since, check) {
    const deadline = performance.now() + FRAME_TIMEOUT_MS;
    let from = this.writes.findIndex((write) => write.at >= since);
    if (from === -1) from = this.writes.length;
    for (;;) {
      for (; from < this.writes.length; from++)
        if (check(this.writes[from].data)) return this.writes[from].at;
      if (performance.now() > deadline) return null;
      await sleep(1);
    }
  }
}

/** What Ink needs of a keyboard; `press` types a key. */
class FakeKeyboard extends EventEmitter {
  isTTY = true;
  data = null;
  setRawMode() {}
  setEncoding() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
  read() {
    const data = this.data;
    this.data = null;
    return data;
  }
  press(key) {
    this.data = key;
    this.emit('readable');
  }
}

progress(`dash redraw: filling a store with ${JOBS} jobs`);
const home = makeTempDir('dash');
await writeJobs(`${home}/sched.db`, farFutureJobs(JOBS, 'job'));
const daemon = await startDaemon({ label: 'dash', home });
const terminal = new RecordingTerminal();
const keyboard = new FakeKeyboard();
const figures = {};
const rows = [];
try {
  const dashboard = runDashboard({
    target: { socketPath: daemon.socketPath },
    env: { NO_COLOR: '1' },
    zone: 'UTC',
    stdout: terminal,
    stdin: keyboard,
  });
  const started = performance.now();
  if (
    (await terminal.frameAfter(0, (data) => data.includes(`${JOBS.toLocaleString('en-US')} jobs:`))) === null
  )
    throw new Error(`the dashboard did not show ${JOBS} jobs within ${FRAME_TIMEOUT_MS} ms`);
  figures.firstFullFrameMs = performance.now() - started;

  const client = await daemon.connect();
  const events = subscribe(client, { types: ['job:created', 'job:updated'] });
  await events.ready;
  const arrivals = [];
  void (async () => {
    for await (const event of events)
      arrivals.push({ key: `${event.type} ${event.data.name} ${event.data.state}`, at: performance.now() });
  })();
  /** When this process got the event for `key`, sent at `since` or later (the same key comes back in turns). */
  const arrival = async (key, since) => {
    const deadline = performance.now() + FRAME_TIMEOUT_MS;
    for (;;) {
      const found = arrivals.find((entry) => entry.key === key && entry.at >= since);
      if (found || performance.now() > deadline) return found?.at;
      await sleep(1);
    }
  };

  const measure = async (label, send, eventKey, check) => {
    const fromEvent = [];
    const fromRequest = [];
    let missed = 0;
    for (let i = 0; i < PROBES; i++) {
      // The selection on the top row keeps the list at its top, where new jobs come into view.
      keyboard.press('g');
      await sleep(100 + Math.random() * 200);
      const sent = performance.now();
      const { key, shows } = await send(i);
      const frameAt = await terminal.frameAfter(sent, (data) => check(data, shows));
      const eventAt = await arrival(eventKey(key), sent);
      if (frameAt === null || eventAt === undefined) {
        if (++missed > 3) throw new Error(`${label}: ${missed} probes never showed on screen`);
        continue;
      }
      fromRequest.push(frameAt - sent);
      fromEvent.push(Math.max(0, frameAt - eventAt));
    }
    const event = summarize(fromEvent);
    const request = summarize(fromRequest);
    figures[label] = { eventToFrame: event, requestToFrame: request, missed };
    rows.push(
      {
        benchmark: 'dash redraw',
        scenario: `${label}: event → frame, ${JOBS.toLocaleString('en-US')} jobs`,
        n: event.n,
        p50: event.p50,
        p99: event.p99,
        max: event.max,
        notes: missed ? `${missed} missed` : '',
      },
      {
        benchmark: 'dash redraw',
        scenario: `${label}: request → frame`,
        n: request.n,
        p50: request.p50,
        p99: request.p99,
        max: request.max,
        notes: 'incl. daemon commit',
      },
    );
  };

  progress(`dash redraw: ${PROBES} jobs added`);
  // Names that sort before every other, each before the last: the newest is always the top row.
  const probeName = (i) => `aaa-${String(1_000_000 - i)}`;
  await measure(
    'job added',
    async (i) => {
      const name = probeName(i);
      void client.call('job.add', { input: { name, every: '24h', argv: ['true'], timezone: 'UTC' } });
      return { key: name, shows: name };
    },
    (name) => `job:created ${name} active`,
    (data, name) => data.includes(name),
  );

  progress(`dash redraw: ${PROBES} pauses and resumes`);
  const onScreen = probeName(PROBES - 1);
  await measure(
    'job paused/resumed',
    async (i) => {
      const pause = i % 2 === 0;
      void client.call(pause ? 'job.pause' : 'job.resume', { ref: onScreen });
      return { key: pause ? 'paused' : 'active', shows: pause ? '‖ paused' : 'in 23h' };
    },
    (state) => `job:updated ${onScreen} ${state}`,
    // One painted line ends with erase-to-end-of-line: the probe's row, showing its new state.
    (data, shows) => data.split('\u001B[K').some((line) => line.includes(onScreen) && line.includes(shows)),
  );

  keyboard.press('q');
  await dashboard;
  void events.return();
  client.close();
} finally {
  await daemon.dispose();
}
emitResult({
  benchmark: `sched dash redraw after an event (${JOBS.toLocaleString('en-US')} jobs stored)`,
  rows,
  figures,
});
