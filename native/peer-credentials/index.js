// The addon and the run-as program are built by `npm ci` (node-gyp, see package.json) into build/Release.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const addon = createRequire(import.meta.url)('./build/Release/peer_credentials.node');

export const { mechanism, peerCredentials, userById, userByName, groupNamesOf, groupIdOf } = addon;

/** Where the build puts sched-run-as (see run_as.c); the daemon checks it is there before it relies on it. */
export const runAsProgram = fileURLToPath(new URL('./build/Release/sched-run-as', import.meta.url));
