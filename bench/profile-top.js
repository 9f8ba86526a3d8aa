// The top self-time frames of a V8 CPU profile (`node --cpu-prof`), for a note: where a daemon spends its
// CPU under a benchmark. Run a benchmark with BENCH_DAEMON_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR', then
//   node bench/profile-top.js DIR/CPU.*.cpuprofile [--top 25] [--by file|package] [--last SECONDS]
//     [--from SECONDS] [--to SECONDS] [--timeline]
// `--last` keeps the samples of the profile's last seconds only: a benchmark's measuring window, without the
// fill before it (a daemon's profile covers its whole life). `--from` and `--to` keep those between two
// moments, in seconds since the profile began: one phase of a benchmark that has several, which
// `--timeline` (the busy milliseconds of each second) shows where to find.
// Frames are merged by function, file and line; `--by file` or `--by package` merges them further. Idle time
// (the `(idle)` frame) is left out of the percentages, which are shares of the time the thread was busy.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    by: { type: 'string', default: 'frame' },
    last: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
if (positionals.length === 0) {
  console.error(
    'usage: node bench/profile-top.js FILE.cpuprofile... [--top N] [--by frame|file|package] [--last SECONDS] [--from SECONDS] [--to SECONDS] [--timeline]',
  );
  process.exit(2);
}

/** The span of the profile whose samples count, in its own microseconds, as the options ask. */
function spanOf(profile) {
  const seconds = (name) => (values[name] === undefined ? undefined : Number(values[name]) * 1e6);
  const last = seconds('last');
  const from = seconds('from');
  const to = seconds('to');
  return {
    from: Math.max(
      last === undefined ? -Infinity : profile.endTime - last,
      from === undefined ? -Infinity : profile.startTime + from,
    ),
    to: to === undefined ? Infinity : profile.startTime + to,
  };
}

/**
 * Self microseconds per node id: each sample's time delta belongs to the frame it landed in. Only the
 * samples taken within `span` count.
 */
function selfTimes(profile, span) {
  const self = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= span.from && at < span.to) self.set(id, (self.get(id) ?? 0) + delta);
  });
  return self;
}

/** The busy milliseconds of each second of the profile, to find a benchmark's phases in it. */
function printTimeline(file, profile, frames) {
  const busy = [];
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (frames.get(id).functionName === '(idle)') return;
    const second = Math.floor((at - profile.startTime) / 1e6);
    busy[second] = (busy[second] ?? 0) + delta / 1000;
  });
  console.log(`${file}: busy ms in each second since the profile began`);
  for (let second = 0; second < busy.length; second += 1)
    console.log(`${String(second).padStart(5)} s ${String(Math.round(busy[second] ?? 0)).padStart(5)}`);
}

function shortUrl(url) {
  if (!url) return '';
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('/node_modules/');
  if (modules !== -1) return file.slice(modules + '/node_modules/'.length);
  const dist = file.indexOf('/dist/');
  if (dist !== -1) return file.slice(dist + 1);
  return file.startsWith('node:') ? file : path.basename(file);
}

function packageOf(url) {
  const file = shortUrl(url);
  if (file.startsWith('dist/')) return `sched ${file.split('/').slice(1, 3).join('/')}`;
  if (file.startsWith('node:') || file === '') return file || '(native or V8)';
  const parts = file.split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

function keyOf(frame, by) {
  if (by === 'package') return packageOf(frame.url);
  if (by === 'file') return shortUrl(frame.url) || frame.functionName || '(anonymous)';
  const name = frame.functionName || '(anonymous)';
  return frame.url ? `${name}  ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : name;
}

const totals = new Map();
let busyUs = 0;
let idleUs = 0;
for (const file of positionals) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  if (values.timeline) printTimeline(file, profile, frames);
  for (const [id, us] of selfTimes(profile, spanOf(profile))) {
    const frame = frames.get(id);
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const key = keyOf(frame, values.by);
    totals.set(key, (totals.get(key) ?? 0) + us);
  }
}

const top = [...totals].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
console.log(
  `busy ${(busyUs / 1000).toFixed(0)} ms, idle ${(idleUs / 1000).toFixed(0)} ms` +
    ` (${((100 * busyUs) / (busyUs + idleUs || 1)).toFixed(1)}% busy)`,
);
console.log('  self ms   self %  frame');
for (const [key, us] of top) {
  const ms = (us / 1000).toFixed(1).padStart(8);
  const pct = ((100 * us) / (busyUs || 1)).toFixed(1).padStart(6);
  console.log(`${ms}  ${pct}%  ${key}`);
}
