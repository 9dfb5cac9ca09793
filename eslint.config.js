// @ts-check
// Lint rules, including the dependency rules of the architecture (test/architecture.spec.ts checks them too):
// core imports no Nest and no other lib; server and client never import each other; redis builds on the server only;
// metrics subscribes to the server and the client;
// no lib imports apps/ or test/;
// deep @nestjs/* paths only in each lib's invocation/nest-internals.ts; no import cycles under libs/.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const importPlugin = require('eslint-plugin-import');
const prettier = require('eslint-config-prettier');

const NEST_INTERNALS = ['libs/server/src/invocation/nest-internals.ts', 'libs/client/src/invocation/nest-internals.ts'];

const noAppsOrTests = [
  { group: ['**/apps/**', '**/test/**', '**/bench/**'], message: 'A lib never imports an app, a test or a benchmark.' },
];
const noDeepNest = {
  group: ['@nestjs/*/*', '@nestjs/*/*/**'],
  message: 'Deep @nestjs/* paths only in invocation/nest-internals.ts: import from there.',
};
const noServer = {
  group: ['@conduit-mcp/server', '@conduit-mcp/server/**', '**/libs/server/**', '**/server/src/**'],
  message: 'The client never imports the server.',
};
const noClient = {
  group: ['@conduit-mcp/client', '@conduit-mcp/client/**', '**/libs/client/**', '**/client/src/**'],
  message: 'The server never imports the client.',
};
const noLibSubpaths = {
  group: ['@conduit-mcp/*/*', '@conduit-mcp/*/*/**'],
  message: 'Import a lib by its package name (its index.ts), not by a path inside it.',
};

module.exports = tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'docs/api/**',
      'coverage/**',
      'results/**',
      'bench/results/**',
      'bench/.build/**',
      'bench/.baseline/**',
      '.cache/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { import: importPlugin },
    languageOptions: {
      parserOptions: { project: false },
      globals: { ...require('globals').node },
    },
    settings: {
      'import/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import/resolver': { typescript: { project: './tsconfig.json' }, node: true },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-empty-object-type': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['libs/**/*.ts'],
    ignores: ['libs/**/*.spec.ts', 'libs/**/*.fixtures-spec.ts'],
    rules: {
      'import/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    files: ['libs/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@nestjs/*', '@nestjs/**'], message: 'core imports no Nest.' },
            {
              group: [
                '@conduit-mcp/*',
                '**/libs/server/**',
                '**/libs/client/**',
                '**/server/src/**',
                '**/client/src/**',
              ],
              message: 'core imports no other lib.',
            },
            ...noAppsOrTests,
          ],
        },
      ],
    },
  },
  {
    files: ['libs/server/**/*.ts'],
    ignores: NEST_INTERNALS,
    rules: {
      'no-restricted-imports': ['error', { patterns: [noClient, noDeepNest, noLibSubpaths, ...noAppsOrTests] }],
    },
  },
  {
    // A spec may use the shared test support and reach Nest's internals to compare with them.
    files: ['libs/server/**/*.spec.ts', 'libs/server/**/*.fixtures-spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noClient, noLibSubpaths] }] },
  },
  {
    files: ['libs/client/**/*.ts'],
    ignores: NEST_INTERNALS,
    rules: {
      'no-restricted-imports': ['error', { patterns: [noServer, noDeepNest, noLibSubpaths, ...noAppsOrTests] }],
    },
  },
  {
    files: ['libs/client/**/*.spec.ts', 'libs/client/**/*.fixtures-spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noServer, noLibSubpaths] }] },
  },
  {
    // The Redis lib builds on the server's public API; it never reaches the client or Nest's internals.
    files: ['libs/redis/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [noClient, noDeepNest, noLibSubpaths, ...noAppsOrTests] }],
    },
  },
  {
    // Its specs run the server's contract suites (`@conduit-mcp/server/contracts`).
    files: ['libs/redis/**/*.spec.ts', 'libs/redis/**/*.fixtures-spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noClient] }] },
  },
  {
    // The metrics lib subscribes to the server's and the client's public channels; never Nest's internals.
    files: ['libs/metrics/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noDeepNest, noLibSubpaths, ...noAppsOrTests] }] },
  },
  {
    files: NEST_INTERNALS,
    rules: {
      'no-restricted-imports': ['error', { patterns: [noLibSubpaths, ...noAppsOrTests] }],
    },
  },
  {
    // Tests and benchmarks handle raw JSON-RPC payloads and check control characters on purpose.
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.fixtures-spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-control-regex': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...require('globals').node } },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...require('globals').node } },
  },
  prettier,
);
