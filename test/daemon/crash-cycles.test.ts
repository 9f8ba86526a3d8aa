import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv } from '../support/child-env.js';
import { makeHome, removeHome, repoRoot } from '../support/sched-harness.js';

const CYCLES = 50;
const BENCH = path.join(repoRoot, 'bench', 'crash-cycles.js');

interface CrashFigures {
  cycles: number;
  seed: number;
  violations: Record<string, number>;
  evidence: { cycle: number; kind: string; evidence: unknown }[];
}

/**
 * The cycles are the benchmark's own (bench/crash-cycles.js, on dist/): one implementation, run here with
 * 50 cycles and short kill windows. It hands its figures over in BENCH_RESULT_FILE.
 */
function runCrashCycles(
  resultFile: string,
  started: ChildProcess[],
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BENCH, String(CYCLES)], {
    env: childEnv({
      BENCH_RESULT_FILE: resultFile,
      BENCH_CRASH_WINDOW_MS: '500',
      BENCH_CRASH_STARTUP_KILLS: '10',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('a daemon killed with SIGKILL at random moments, again and again', () => {
  const started: ChildProcess[] = [];
  const scratch: string[] = [];
  afterEach(() => {
    // SIGTERM: the benchmark then stops the daemon it started and removes its home.
    for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
    for (const dir of scratch.splice(0)) removeHome(dir);
  });

  it('loses no acknowledged job, leaves no run running or child alive, fires no instant twice and keeps idempotent creates and the database whole', async () => {
    // Given a daemon with per-second jobs and two clients adding jobs with idempotency keys
    const dir = makeHome('sched-crash-');
    scratch.push(dir);
    const resultFile = path.join(dir, 'result.json');

    // When it is killed with SIGKILL at a random moment and restarted, 50 times, checking after each restart
    const { code, output } = await runCrashCycles(resultFile, started);

    // Then every cycle ran and none found a violation; a failure shows the cycle, the kind and the evidence
    expect(code, output).toBe(0);
    const { figures } = JSON.parse(fs.readFileSync(resultFile, 'utf8')) as { figures: CrashFigures };
    const found = `seed ${figures.seed}: ${JSON.stringify(figures.evidence, null, 2)}`;
    expect(figures.violations, found).toEqual({});
    expect(figures.cycles, output).toBe(CYCLES);
    // Each cycle starts a real daemon (about 1.3 s of CPU, most of it loading modules): 50 cycles took 2½
    // minutes on the 2-core machine at a load of 3–5, and 7 minutes at a load of 15.
  }, 900_000);
});
