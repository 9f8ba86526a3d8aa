// 5. CLI start-up: wall time from spawn to exit of
//      node -e 0                          (Node itself)
//      node bin/run.js --version          (oclif's built-in flag: config load, no command class)
//      node bin/run.js --help             (oclif's built-in root help: reads the manifest, lists commands)
//      node bin/run.js show JOB           (a real command: oclif + our command + connect + job.get + render)
//    against a running daemon, interleaved round by round (each round starts with the next command), so
//    drift in the machine's state hits all of them alike. The daemon runs with its event log on, the way
//    users run it: `job.get` logs nothing.
// Knobs: BENCH_CLI_ROUNDS (20).
import { knob } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import { SCHED_BIN } from './lib/paths.js';
import { emitResult, progress } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { timeProcess } from './lib/wall-time.js';

const ROUNDS = knob('CLI_ROUNDS', 20, 5);
const WARMUP_ROUNDS = 2;
const JOB = 'cli-bench';

const daemon = await startDaemon({ label: 'cli', quiet: false });
const rows = [];
const figures = {};
try {
  const client = await daemon.connect();
  await client.call('job.add', { input: { name: JOB, every: '1h', argv: ['true'] } });
  client.close();

  const env = { ...process.env, SCHED_HOME: daemon.home };
  const commands = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'sched --version (oclif built-in)', args: [SCHED_BIN, '--version'], oclif: true },
    { name: 'sched --help (oclif built-in)', args: [SCHED_BIN, '--help'], oclif: true },
    { name: `sched show ${JOB}`, args: [SCHED_BIN, 'show', JOB] },
  ];
  const samples = new Map(commands.map((command) => [command.name, []]));
  progress(`cli start-up: ${ROUNDS} interleaved rounds of ${commands.length} commands`);
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
    for (let k = 0; k < commands.length; k++) {
      const command = commands[(round + k) % commands.length];
      const wallMs = await timeProcess(command.args, env);
      if (round >= WARMUP_ROUNDS) samples.get(command.name).push(wallMs);
    }
  }

  const stats = new Map(commands.map((command) => [command.name, summarize(samples.get(command.name))]));
  // The baseline for "what our code adds" is the cheaper of the two pure-oclif paths.
  const bareOclif = commands
    .filter((command) => command.oclif)
    .reduce((best, command) => (stats.get(command.name).p50 < stats.get(best.name).p50 ? command : best));
  const base = stats.get(bareOclif.name);
  const node = stats.get('node -e 0');
  const version = stats.get(commands[1].name);
  for (const command of commands) {
    const s = stats.get(command.name);
    let notes = '';
    let goals;
    if (command.name.startsWith('sched show')) {
      // Issue #17's goal is against `sched --version`, whichever oclif path is cheaper today.
      goals = { 'show-over-version': ((s.p50 - version.p50) / version.p50) * 100 };
      const overMs = s.p50 - base.p50;
      notes = `+${overMs.toFixed(0)} ms (+${((overMs / base.p50) * 100).toFixed(0)}%) over ${bareOclif.name.split(' (')[0]} at p50`;
      figures.showOverBareOclif = {
        baseline: bareOclif.name,
        p50Ms: overMs,
        p50Pct: (overMs / base.p50) * 100,
      };
    } else if (command.oclif) {
      notes = `+${(s.p50 - node.p50).toFixed(0)} ms over node -e 0 at p50`;
      if (command === bareOclif) notes += '; the baseline';
    }
    rows.push({
      benchmark: 'CLI start-up',
      scenario: command.name,
      n: s.n,
      p50: s.p50,
      p99: s.p99,
      max: s.max,
      notes,
      goals,
    });
    figures[command.name] = s;
  }
} finally {
  await daemon.dispose();
}
emitResult({ benchmark: 'CLI start-up (spawn → exit, interleaved)', rows, figures });
