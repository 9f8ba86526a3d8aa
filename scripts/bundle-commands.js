// Part of `npm run build`, after bundle-oclif.js: rewrites each command in dist/commands as one ESM file.
//
// Why: loading a command's own modules file by file (about fifty for `sched show`: the base command, the
// client, the formatters, core helpers) cost more than the command's work. Each command file becomes its
// code and the CLI-side code it imports, bundled; oclif's manifest still names the same files.
//
// What stays outside a bundle, loaded as before:
// - packages (node_modules), except the small pure ones listed in BUNDLED_PACKAGES: native modules,
//   packages that require files dynamically, and heavy ones a command loads only on some paths;
// - the daemon's side of dist/ (daemon, store, cluster, tui, backup, recovery, diagnostics): it finds
//   files beside itself through import.meta.url (migrations, its spawn worker) and is large;
// - a dynamic import whose target would pull any of the above in: ESM cannot import lazily from the top
//   of a file, so a bundle would load it eagerly. It stays a dynamic import of the unbundled dist file.
// A dynamic import of CLI-side code alone is bundled in place and still runs only when reached.
//
// Node's own modules are taken with process.getBuiltinModule at the top of each bundle rather than
// imported: importing one from ESM builds a module facade of all its exports, and node:process's alone
// (which chalk's colour probe imports) cost 1.6 ms, since listing process's properties computes its
// allowed flags. (Bundling them as CommonJS instead copies every export into an object: 0.8 ms.)
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

/** The folders of dist/ whose modules a command bundle takes in. */
const BUNDLED_DIRS = new Set(['commands', 'cli', 'client', 'ipc', 'core', 'config']);
/** Packages small, pure JavaScript and on everyday commands' path. */
const BUNDLED_PACKAGES = new Set(['chalk']);
/** Marks an external module of dist/ until its path, relative to the bundle's own place, is known. */
const DIST_MARK = 'sched-dist:';

const commands = fs
  .readdirSync(path.join(dist, 'commands'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.js'))
  .map((file) => path.join(dist, 'commands', file));
if (commands.length === 0)
  throw new Error('no command in dist/commands: is the build output where expected?');

const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

// chalk is bundled through scripts/chalk-on-demand.js, which builds it only when colour is on.
const CHALK_ON_DEMAND = path.join(root, 'scripts', 'chalk-on-demand.js');
const CHALK_SUPPORTS_COLOR = path.join(
  path.dirname(fileURLToPath(import.meta.resolve('chalk'))),
  'vendor',
  'supports-color',
  'index.js',
);

const isBuiltin = (specifier) => specifier.startsWith('node:') || builtinModules.includes(specifier);

/**
 * Where an import goes: bundled (undefined, esbuild resolves it), Node's own module, or left external and
 * how it is written.
 */
function place(specifier, importer) {
  if (isBuiltin(specifier))
    return { external: specifier.startsWith('node:') ? specifier : `node:${specifier}` };
  if (specifier === 'chalk-supports-color') return { bundled: CHALK_SUPPORTS_COLOR };
  if (specifier === 'chalk' && importer !== CHALK_ON_DEMAND) return { bundled: CHALK_ON_DEMAND };
  if (!specifier.startsWith('.')) {
    const inPackage = importer.includes(`${path.sep}node_modules${path.sep}`);
    return inPackage || BUNDLED_PACKAGES.has(packageName(specifier)) ? undefined : { external: specifier };
  }
  const target = path.resolve(path.dirname(importer), specifier);
  const inDist = path.relative(dist, target);
  if (inDist.startsWith('..')) return undefined; // inside a bundled package
  if (BUNDLED_DIRS.has(inDist.split(path.sep)[0])) return { bundled: target };
  return { external: `${DIST_MARK}${inDist.split(path.sep).join('/')}` };
}

/**
 * The externals each CLI-side module loads statically, itself or through what it imports statically:
 * read from one metafile of every command with every dynamic import followed.
 */
async function staticExternals() {
  const { metafile } = await build({
    ...common(commands),
    outdir: path.join(dist, '.bundle-probe'),
    write: false,
    metafile: true,
    plugins: [resolver(() => true)],
  });
  const imports = new Map(
    Object.entries(metafile.inputs).map(([file, input]) => [path.resolve(root, file), input.imports]),
  );
  const memo = new Map();
  const externalsOf = (file) => {
    if (memo.has(file)) return memo.get(file);
    const found = new Set();
    memo.set(file, found);
    for (const edge of imports.get(file) ?? []) {
      if (edge.kind !== 'import-statement') continue;
      if (edge.external) found.add(edge.path);
      else for (const external of externalsOf(path.resolve(root, edge.path))) found.add(external);
    }
    return found;
  };
  return externalsOf;
}

function resolver(inlineDynamic) {
  return {
    name: 'sched-layers',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const where = place(args.path, args.importer);
        if (where === undefined) return undefined;
        if (where.external !== undefined) return { path: where.external, external: true };
        if (args.kind === 'dynamic-import' && !inlineDynamic(where.bundled))
          return {
            path: `${DIST_MARK}${path.relative(dist, where.bundled).split(path.sep).join('/')}`,
            external: true,
          };
        return { path: where.bundled };
      });
    },
  };
}

function common(entryPoints) {
  return {
    entryPoints,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outbase: dist,
    logLevel: 'warning',
  };
}

// The bundled @oclif/core is loaded by bin/run.js before any command, so importing it costs nothing more.
const free = (external) => external.startsWith('node:') || external === `${DIST_MARK}vendor/oclif-core.js`;
const externalsOf = await staticExternals();
const inlineDynamic = (file) => [...externalsOf(file)].every(free);

// Built in memory, every one, before any file of dist/commands is replaced.
const { outputFiles } = await build({
  ...common(commands),
  outdir: dist,
  write: false,
  plugins: [resolver(inlineDynamic)],
});
const BUILTIN_IMPORT = /^import ([^;]*?) from "(node:[a-z_/]+)";\n/gm;

/**
 * Each `import … from "node:…"` of a bundle becomes a constant taken from process.getBuiltinModule at the
 * top of the file: Node's modules depend on nothing of the bundle, so they are there before it runs, as
 * imports would be.
 */
function takeBuiltins(text) {
  const taken = [];
  const rest = text.replace(BUILTIN_IMPORT, (_statement, clause, name) => {
    const module = `process.getBuiltinModule(${JSON.stringify(name)})`;
    const named = /^(?:([\w$]+)\s*,\s*)?\{([^}]*)\}$/.exec(clause.trim());
    const whole = /^(?:\*\s+as\s+)?([\w$]+)$/.exec(clause.trim());
    if (named) {
      const bindings = named[2]
        .split(',')
        .map((binding) => binding.trim())
        .filter(Boolean)
        .map((binding) => binding.replace(/\s+as\s+/, ': '));
      if (named[1] !== undefined) taken.push(`const ${named[1]} = ${module};`);
      taken.push(`const { ${bindings.join(', ')} } = ${module};`);
    } else if (whole) taken.push(`const ${whole[1]} = ${module};`);
    else throw new Error(`an import of ${name} this build cannot rewrite: import ${clause}`);
    return '';
  });
  if (/^import [^;]* from "node:/m.test(rest))
    throw new Error('an import of a Node module was left in a bundle');
  return `${taken.join('\n')}\n${rest}`;
}

const MARKED = new RegExp(`(["'])${DIST_MARK}([^"']+)\\1`, 'g');
for (const output of outputFiles) {
  const text = takeBuiltins(output.text).replace(MARKED, (_match, quote, inDist) => {
    let relative = path
      .relative(path.dirname(output.path), path.join(dist, inDist))
      .split(path.sep)
      .join('/');
    if (!relative.startsWith('.')) relative = `./${relative}`;
    return `${quote}${relative}${quote}`;
  });
  fs.writeFileSync(output.path, text);
  // tsc's source map describes the file this bundle replaced.
  fs.rmSync(`${output.path}.map`, { force: true });
}
