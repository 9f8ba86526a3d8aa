#!/usr/bin/env node
// The bundled @oclif/core (see scripts/bundle-oclif.js): one file to load instead of about 170.
import { execute } from '../dist/vendor/oclif-core.js';

await execute({ dir: import.meta.url });
