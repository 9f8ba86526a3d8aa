// Security's cost (#13): durable creates (8 client processes × 8 in flight) and get by name (sequential)
// against a daemon with everything security adds switched on, beside the same against one with it off,
// alternating in the same run so the machine's noise falls on both alike.
//   off: the single-user default (socket 0600, no [access] lists) and jobs with nothing secret.
//   on:  a multi-user daemon (socket 0660, [access] lists of users and @groups, whose callers the kernel
//        names; [limits] generous, admins not exempt, so each request is counted), every job carrying two
//        --env values and a payload sealed with AES-256-GCM at rest, which each get opens and masks.
// Knobs: BENCH_SECURITY_CREATES (creates per rep and mode), BENCH_SECURITY_GETS (gets per rep and mode).
import fs from 'node:fs';
import path from 'node:path';
import { REPS, knob } from './lib/config.js';
import { startCreateClients } from './lib/create-clients.js';
import { startDaemon } from './lib/daemon.js';
import { pipelined } from './lib/pipeline.js';
import { cpuMeter } from './lib/process-cpu.js';
import { makeTempDir } from './lib/processes.js';
import { emitResult, progress } from './lib/report.js';
import { medianOfReps, summarize } from './lib/stats.js';

const CREATES = knob('SECURITY_CREATES', 8_000, 1_000);
const GETS = knob('SECURITY_GETS', 3_000, 500);
const CLIENTS = 8;
const CLIENT_DEPTH = 8;
const WARMUP = 50;

const SECURE_CONFIG = `socket_mode = "0660"

[access]
operators = ["@users", "alice", "bob"]
viewers = ["@adm", "carol"]

# Generous, and the benchmark (an admin) held to them, so every request pays for its bucket.
[limits]
exempt_admins = false
create = 1000000
get = 1000000
`;

const MODES = [
  { name: 'off', secrets: false, config: null },
  { name: 'on', secrets: true, config: SECURE_CONFIG },
];

async function measure(mode, rep) {
  const home = makeTempDir(`security-${mode.name}`);
  if (mode.config !== null) fs.writeFileSync(path.join(home, 'config.toml'), mode.config);
  const daemon = await startDaemon({ label: `security-${mode.name}`, home });
  try {
    const workers = await startCreateClients(daemon, {
      clients: CLIENTS,
      warmup: WARMUP,
      secrets: mode.secrets,
    });
    const cpu = cpuMeter(daemon.pid);
    const prefix = `r${rep}`;
    const creates = await workers.run({ count: CREATES, depth: CLIENT_DEPTH, prefix });
    const daemonCpuPct = cpu.stop(creates.elapsedMs);
    await workers.close();
    const client = await daemon.connect();
    const perClient = Math.ceil(CREATES / CLIENTS);
    const nameOf = (i) => `${prefix}-w${i % CLIENTS}-${Math.floor(i / CLIENTS) % perClient}`;
    const get = (i) => client.call('job.get', { ref: nameOf((i * 7919) % CREATES), upcoming: 0 });
    await pipelined(WARMUP * 4, 1, get);
    const gets = summarize((await pipelined(GETS, 1, get)).latenciesMs);
    client.close();
    return {
      createsPerSec: creates.latenciesMs.length / (creates.elapsedMs / 1000),
      createP50: summarize(creates.latenciesMs).p50,
      daemonCpuPct,
      getP50: gets.p50,
      getP99: gets.p99,
      getMax: gets.max,
    };
  } finally {
    await daemon.dispose();
  }
}

const reps = { off: [], on: [] };
for (let rep = 0; rep < REPS; rep++) {
  for (const mode of rep % 2 === 0 ? MODES : [...MODES].reverse()) {
    progress(`security cost: rep ${rep + 1}/${REPS}, security ${mode.name}`);
    reps[mode.name].push(await measure(mode, rep));
  }
}
const off = medianOfReps(reps.off);
const on = medianOfReps(reps.on);
const createsCostPct = ((off.createsPerSec - on.createsPerSec) / off.createsPerSec) * 100;
const getCostMs = on.getP50 - off.getP50;
const signed = (value, digits) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
const rows = MODES.map(({ name }) => {
  const median = name === 'on' ? on : off;
  return {
    benchmark: 'security cost',
    scenario: `security ${name}: creates 8 × 8, then get by name`,
    n: CREATES,
    rate: median.createsPerSec,
    rateUnit: 'jobs/s',
    p50: median.getP50,
    p99: median.getP99,
    max: median.getMax,
    notes:
      `median of ${REPS}; p50/p99/max are the gets; daemon CPU ${Math.round(median.daemonCpuPct)}% during creates` +
      (name === 'on'
        ? `; cost: creates ${signed(createsCostPct, 1)}%, get p50 ${signed(getCostMs, 3)} ms`
        : ''),
    goals:
      name === 'on' ? { 'security-creates-cost': createsCostPct, 'security-get-cost': getCostMs } : undefined,
  };
});
emitResult({
  benchmark: 'the cost of security: access control and secrets at rest',
  rows,
  figures: { reps, off, on },
});
