import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The CLI entry point, exactly as users run it. */
export const SCHED_BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
