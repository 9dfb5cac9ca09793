/** @type {import('jest').Config} */
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  roots: ['<rootDir>/libs', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
    // jose 6 ships ES modules only and Jest runs CommonJS here: it gets jose transpiled (Node itself loads it with
    // require(esm)).
    '^.+/node_modules/jose/.+\\.js$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  testEnvironment: 'node',
  moduleNameMapper: {
    '^@conduit-mcp/core(|/.*)$': '<rootDir>/libs/core/src$1',
    '^@conduit-mcp/server(|/.*)$': '<rootDir>/libs/server/src$1',
    '^@conduit-mcp/client(|/.*)$': '<rootDir>/libs/client/src$1',
  },
  testTimeout: 30000,
};
