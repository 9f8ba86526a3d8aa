// Part of `npm run build`: bundles @oclif/core into one file and points the built CLI at it.
//
// Why: every `sched` command starts a Node process, and loading @oclif/core and its dependencies file by
// file (about 170 CommonJS modules) was most of what a command cost before it did anything. One bundled
// file loads in a fraction of that. The bundle is @oclif/core itself, unchanged; TypeScript still compiles
// against the package's own types, and only the JavaScript in dist/ (and bin/run.js) loads the bundle.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const bundle = path.join(dist, 'vendor', 'oclif-core.js');

// ESM needs its export names written out; they are the package's own, read from it here.
const exported = Object.keys(createRequire(import.meta.url)('@oclif/core')).filter(
  (name) => name !== 'default',
);
await build({
  stdin: {
    contents: `import * as core from '@oclif/core';\nexport const { ${exported.join(', ')} } = core;\n`,
    resolveDir: root,
    sourcefile: 'oclif-core-entry.js',
  },
  bundle: true,
  platform: 'node',
  // ESM, so the CLI's ESM imports it as it is: importing CommonJS from ESM scans the whole file for its
  // exports first, which cost about as much as the bundle saved. The CommonJS inside keeps its `require`.
  format: 'esm',
  // The CommonJS inside expects `require`, and `__dirname` to be @oclif/core's own lib/ folder (it reads
  // the package's package.json from there).
  banner: {
    js: [
      "import { createRequire as __createRequire } from 'node:module';",
      "import { dirname as __pathDirname } from 'node:path';",
      'const require = __createRequire(import.meta.url);',
      "const __filename = require.resolve('@oclif/core');",
      'const __dirname = __pathDirname(__filename);',
    ].join('\n'),
  },
  target: 'node20',
  outfile: bundle,
  // Loaded by oclif only to run TypeScript sources in development, never by the built CLI.
  external: ['typescript', 'ts-node', 'source-map-support'],
  logLevel: 'warning',
});

// oclif sorts the command ids with localeCompare as it loads, on every command: the collator's first use
// cost 6 to 9 ms of each `sched` process. For ids of lower-case letters, `:` and `-` (all of sched's), the
// order by code unit is the collator's; any other id is compared as oclif does.
const SORT_BY_ID = '.sort((a, b) => a.id.localeCompare(b.id))';
const PLAIN_ID = /^[a-z:-]*$/;
const bundled = fs.readFileSync(bundle, 'utf8');
if (bundled.split(SORT_BY_ID).length !== 2)
  throw new Error(`@oclif/core's sort of command ids (${SORT_BY_ID}) is not in the bundle once: look again`);
fs.writeFileSync(
  bundle,
  bundled.replace(
    SORT_BY_ID,
    `.sort((a, b) => ${PLAIN_ID}.test(a.id) && ${PLAIN_ID}.test(b.id) ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.id.localeCompare(b.id))`,
  ),
);

const IMPORT = /(from\s+|import\s*\(\s*)(['"])@oclif\/core\2/g;
let rewritten = 0;
for (const file of fs.readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.js')) continue;
  const full = path.join(dist, file);
  const source = fs.readFileSync(full, 'utf8');
  let relative = path.relative(path.dirname(full), bundle).split(path.sep).join('/');
  if (!relative.startsWith('.')) relative = `./${relative}`;
  const changed = source.replace(IMPORT, (_match, head, quote) => `${head}${quote}${relative}${quote}`);
  if (changed !== source) {
    fs.writeFileSync(full, changed);
    rewritten += 1;
  }
}
if (rewritten === 0)
  throw new Error('no file in dist/ imports @oclif/core: is the build output where expected?');
