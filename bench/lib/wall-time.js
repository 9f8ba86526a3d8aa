import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** Wall time in ms of `node <args>` from spawn to exit; rejects, with its stderr, when it exits non-zero. */
export function timeProcess(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code === 0) resolve(wallMs);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
    });
  });
}
