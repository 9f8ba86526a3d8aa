import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The compiled module `name` beside the caller (`from` is its import.meta.url), for a child process or a
 * worker thread to run. Node 20 cannot run TypeScript: compiled, the caller sits in dist/ beside it; under
 * vitest the caller is its .ts source in src/, so the build in dist/ is used (`npm test` builds first).
 * Failing loudly beats silently doing the work somewhere it must not be done.
 */
export function builtModuleUrl(from: string, name: string): URL {
  const sibling = new URL(`./${name}`, from);
  if (existsSync(sibling)) return sibling;
  const path = fileURLToPath(sibling);
  const inSource = path.lastIndexOf('/src/');
  const compiled = inSource < 0 ? null : `${path.slice(0, inSource)}/dist/${path.slice(inSource + 5)}`;
  if (compiled !== null && existsSync(compiled)) return pathToFileURL(compiled);
  throw new Error(
    `${name} not found at ${path}${compiled === null ? '' : ` or ${compiled}`}; run \`npm run build\``,
  );
}
