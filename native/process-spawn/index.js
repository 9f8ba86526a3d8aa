// The addon is built by `npm ci` (node-gyp, see package.json) into build/Release.
import { createRequire } from 'node:module';

const addon = createRequire(import.meta.url)('./build/Release/process_spawn.node');

export const { spawnChild, supported } = addon;
