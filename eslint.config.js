import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    files: ['src/**/*.ts'],
    ignores: ['src/ipc/transport.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'node-ipc', message: 'only src/ipc/transport.ts talks to node-ipc' }] },
      ],
    },
  },
  {
    // The core is pure: it is handed time and randomness and never touches I/O.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'node:*',
            'fs',
            'child_process',
            'net',
            'better-sqlite3',
            'drizzle-orm',
            'drizzle-orm/*',
            'node-ipc',
            '../store/*',
            '../daemon/*',
            '../ipc/*',
          ],
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
