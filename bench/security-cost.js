// Security's cost (#13): durable creates (8 client processes × 8 in flight) and get by name (sequential),
// the modes alternating in the same run so the machine's noise falls on all alike:
//   plain: the single-user default, jobs with nothing secret (a reference: what a job without secrets costs).
//   off:   the single-user default (socket 0600, no [access] lists, no limits), jobs carrying two --env values
//          and a payload.
//   on:    a multi-user daemon (socket 0660, [access] lists of users and @groups, whose callers the kernel
//          names; [limits] generous, admins not exempt, so each request is counted), the same jobs.
// Secrets at rest cannot be switched off (a job's values are always sealed), so off and on both seal; what
// sealing costs is weighed here, in this process, on the same values with the daemon's own SecretBox: its
// CPU per create over the daemon's CPU per create in off mode, and its time to open per get. The cost of
// security is access and limits (on against off) plus that.
// Knobs: BENCH_SECURITY_CREATES (creates per rep and mode), BENCH_SECURITY_GETS (gets per rep and mode).
import fs from 'node:fs';
import { DefinitionSealer } from '../dist/daemon/secrets/definition-sealer.js';
import { Keyring } from '../dist/daemon/secrets/keyring.js';
import { SecretBox } from '../dist/daemon/secrets/secret-box.js';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPS, knob } from './lib/config.js';
import { startCreateClients } from './lib/create-clients.js';
import { SECRET_VALUES } from './lib/create-jobs.js';
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
  { name: 'plain', secrets: false, config: null },
  { name: 'off', secrets: true, config: null },
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
      daemonCpuUsPerCreate: ((daemonCpuPct / 100) * creates.elapsedMs * 1000) / creates.latenciesMs.length,
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

/** Microseconds per job to seal the benchmark's secret values, and to open them again, with the daemon's SecretBox. */
function sealingCost(jobs) {
  const home = makeTempDir('security-sealing');
  const keyring = Keyring.create(path.join(home, 'keys.json'), { monotonic: () => performance.now() });
  const sealer = new DefinitionSealer(new SecretBox(keyring, 'keys.json'));
  const definition = {
    target: { kind: 'command', argv: ['true'], env: { ...SECRET_VALUES.env } },
    payload: JSON.parse(SECRET_VALUES.payload),
  };
  const ids = Array.from({ length: jobs }, (_, i) => `job-${i}`);
  for (let i = 0; i < 1_000; i++)
    sealer.open({ id: ids[i % jobs], ...sealer.seal(definition, ids[i % jobs]) });
  let started = performance.now();
  const sealed = ids.map((id) => ({ id, ...sealer.seal(definition, id) }));
  const sealUs = ((performance.now() - started) * 1000) / jobs;
  started = performance.now();
  for (const job of sealed) sealer.open(job);
  const openUs = ((performance.now() - started) * 1000) / jobs;
  return { sealUs, openUs };
}

const reps = { plain: [], off: [], on: [], sealing: [] };
const orders = [MODES, [...MODES].reverse()];
for (let rep = 0; rep < REPS; rep++) {
  for (const mode of orders[rep % 2]) {
    progress(`security cost: rep ${rep + 1}/${REPS}, ${mode.name}`);
    reps[mode.name].push(await measure(mode, rep));
  }
  reps.sealing.push(sealingCost(CREATES));
}
const plain = medianOfReps(reps.plain);
const off = medianOfReps(reps.off);
const on = medianOfReps(reps.on);
const sealing = medianOfReps(reps.sealing);
const accessCostPct = ((off.createsPerSec - on.createsPerSec) / off.createsPerSec) * 100;
const sealingCostPct = (sealing.sealUs / off.daemonCpuUsPerCreate) * 100;
const createsCostPct = accessCostPct + sealingCostPct;
const getCostMs = on.getP50 - off.getP50 + sealing.openUs / 1000;
const signed = (value, digits) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
const SCENARIOS = {
  plain: 'plain: default daemon, jobs with nothing secret',
  off: 'off: default daemon, jobs with 2 env values + payload',
  on: 'on: access lists + limits, the same jobs',
};
const rows = MODES.map(({ name }) => {
  const median = { plain, off, on }[name];
  return {
    benchmark: 'security cost',
    scenario: SCENARIOS[name],
    n: CREATES,
    rate: median.createsPerSec,
    rateUnit: 'jobs/s',
    p50: median.getP50,
    p99: median.getP99,
    max: median.getMax,
    notes:
      `median of ${REPS}; p50/p99/max are the gets; daemon CPU ${Math.round(median.daemonCpuPct)}% during creates, ` +
      `${Math.round(median.daemonCpuUsPerCreate)} µs per create` +
      (name === 'on'
        ? `; cost: access and limits ${signed(accessCostPct, 1)}% on creates, sealing ${sealing.sealUs.toFixed(1)} µs ` +
          `per create (${sealingCostPct.toFixed(1)}% of off's daemon CPU per create), so ${signed(createsCostPct, 1)}% in all; ` +
          `get p50 ${signed(on.getP50 - off.getP50, 3)} ms + opening ${sealing.openUs.toFixed(1)} µs`
        : ''),
    goals:
      name === 'on' ? { 'security-creates-cost': createsCostPct, 'security-get-cost': getCostMs } : undefined,
  };
});
emitResult({
  benchmark: 'the cost of security: access control, limits and secrets at rest',
  rows,
  figures: { reps, plain, off, on, sealing },
});
