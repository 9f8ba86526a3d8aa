#!/usr/bin/env node
// The bundled @oclif/core (see scripts/bundle-oclif.js): one file to load instead of about 170.
import { execute } from '../dist/vendor/oclif-core.js';

const args = process.argv.slice(2);
// Loaded only when such a flag comes first (see leading-flags.ts), so other start-ups pay nothing for it.
const ordered = /^--(remote|token-file|ca-file)(=|$)/.test(args[0] ?? '')
  ? (await import('../dist/cli/leading-flags.js')).commandFirst(args)
  : args;

await execute({ args: ordered, dir: import.meta.url });
