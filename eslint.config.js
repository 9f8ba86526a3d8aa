import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerImports } from './lint/layer-imports.js';

const schedPlugin = { rules: { 'layer-imports': layerImports } };

/**
 * What commands and the dashboard may not reach: they talk to the daemon through src/client only. What
 * they share (src/cli) and the client itself are held to the same, so nothing reaches it through them.
 */
const surfaceBoundary = {
  layer: 'a command, the dashboard, src/cli or src/client',
  why: 'Commands and the dashboard reach the daemon through src/client, never a store or the daemon inside.',
  forbiddenPaths: ['src/store', 'src/daemon', 'src/cluster'],
  forbiddenPackages: ['better-sqlite3', 'drizzle-orm', 'pg'],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'drizzle/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The core is pure: it is handed time and randomness and never touches I/O.
    files: ['src/core/**/*.ts'],
    plugins: { sched: schedPlugin },
    rules: {
      'sched/layer-imports': [
        'error',
        {
          layer: 'the core',
          why: 'The core is pure: it is handed time, randomness and data, and never reaches I/O.',
          confinedTo: 'src/core',
          // Pure libraries only: a new one here is a decision, made by adding it to this list.
          allowedPackages: ['zod', 'luxon', 'cron-parser'],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'core is handed the time; do not read the clock',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'core is handed the time; do not read the clock',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'core is handed randomness',
        },
      ],
    },
  },
  {
    files: ['src/{commands,tui,cli,client}/**/*.{ts,tsx}'],
    plugins: { sched: schedPlugin },
    rules: { 'sched/layer-imports': ['error', surfaceBoundary] },
  },
  {
    // `sched daemon run` is the daemon process itself: it builds the daemon, through its entry modules only.
    files: ['src/commands/daemon/run.ts'],
    rules: {
      'sched/layer-imports': [
        'error',
        {
          ...surfaceBoundary,
          allowedPaths: [
            'src/daemon/daemon.ts',
            'src/daemon/event-log.ts',
            'src/daemon/observability/fatal-log.ts',
          ],
        },
      ],
    },
  },
  {
    // Time in the daemon and the cluster comes from their Clock (src/daemon/clock.ts), so a test can run it
    // virtually; only systemClock reads the system's time or arms a real timer.
    files: ['src/daemon/**/*.ts', 'src/cluster/**/*.ts'],
    ignores: ['src/daemon/clock.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          "NewExpression[callee.name='Date'][arguments.length=0]",
          "CallExpression[callee.object.name='performance'][callee.property.name='now']",
          'CallExpression[callee.name=/^(setTimeout|setInterval)$/]',
          'CallExpression[callee.object.name=/^(globalThis|global)$/][callee.property.name=/^(setTimeout|setInterval)$/]',
        ].map((selector) => ({ selector, message: 'read time and arm timers through the Clock' })),
      ],
    },
  },
);
