import { builtinModules } from 'node:module';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..');

/**
 * A layer's import boundary, judged on where an import resolves, not on how it is spelled: `../store/x`
 * from src/core/a.ts and `../../store/x` from src/core/cluster/b.ts are the same breach, and a pattern
 * list of spellings misses the second. Static imports, re-exports, `import type` and `import('literal')`
 * all count (no-restricted-imports never sees a dynamic import).
 *
 * Options, one object:
 * - `layer`: what the files are, for the message ("the core", "a command or the dashboard").
 * - `why`: the reason, appended to every report.
 * - `confinedTo`: a folder of the repository that relative imports must stay inside.
 * - `forbiddenPaths`: folders or files of the repository that may not be imported.
 * - `allowedPaths`: exceptions to `forbiddenPaths` (files, without or with extension).
 * - `allowedPackages`: when given, the only packages that may be imported; Node's builtins are refused.
 * - `forbiddenPackages`: packages that may not be imported (a name covers its subpaths).
 */
export const layerImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep a layer from importing what is below its boundary, at any folder depth.' },
    schema: [
      {
        type: 'object',
        properties: {
          layer: { type: 'string' },
          why: { type: 'string' },
          confinedTo: { type: 'string' },
          forbiddenPaths: { type: 'array', items: { type: 'string' } },
          allowedPaths: { type: 'array', items: { type: 'string' } },
          allowedPackages: { type: 'array', items: { type: 'string' } },
          forbiddenPackages: { type: 'array', items: { type: 'string' } },
        },
        required: ['layer', 'why'],
        additionalProperties: false,
      },
    ],
    messages: {
      outside: '{{layer}} may not import {{source}}: it resolves to {{target}}, outside {{folder}}. {{why}}',
      forbiddenPath: '{{layer}} may not import {{source}}: it resolves to {{target}}. {{why}}',
      builtin: '{{layer}} may not import the Node builtin {{source}}. {{why}}',
      package: '{{layer}} may not import the package {{source}}. {{why}}',
    },
  },
  create(context) {
    const options = context.options[0];
    const from = path.dirname(context.filename);

    function check(node, source) {
      const data = { layer: options.layer, why: options.why, source: `'${source}'` };
      if (source.startsWith('.') || source.startsWith('/')) {
        const target = path.relative(repoRoot, path.resolve(from, source)).split(path.sep).join('/');
        const report = (messageId, extra = {}) =>
          context.report({ node, messageId, data: { ...data, target, ...extra } });
        if (options.confinedTo && !isWithin(target, options.confinedTo))
          return report('outside', { folder: options.confinedTo });
        const allowed = (options.allowedPaths ?? []).some(
          (file) => withoutExtension(file) === withoutExtension(target),
        );
        if (!allowed && (options.forbiddenPaths ?? []).some((folder) => isWithin(target, folder)))
          return report('forbiddenPath');
        return;
      }
      if (isBuiltin(source)) {
        if (options.allowedPackages) context.report({ node, messageId: 'builtin', data });
        return;
      }
      const name = packageName(source);
      const refused = options.allowedPackages
        ? !options.allowedPackages.includes(name)
        : (options.forbiddenPackages ?? []).includes(name);
      if (refused) context.report({ node, messageId: 'package', data });
    }

    const fromLiteral = (node) => {
      if (node.source?.type === 'Literal' && typeof node.source.value === 'string')
        check(node.source, node.source.value);
    };
    return {
      ImportDeclaration: fromLiteral,
      ExportNamedDeclaration: fromLiteral,
      ExportAllDeclaration: fromLiteral,
      ImportExpression: fromLiteral,
    };
  },
};

function isWithin(target, folder) {
  const bare = withoutExtension(folder);
  return target === folder || withoutExtension(target) === bare || target.startsWith(`${folder}/`);
}

function withoutExtension(file) {
  return file.replace(/\.(js|ts|tsx|jsx|mjs|cjs)$/, '');
}

function isBuiltin(source) {
  return source.startsWith('node:') || builtinModules.includes(source.split('/')[0]);
}

function packageName(source) {
  const parts = source.split('/');
  return source.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
