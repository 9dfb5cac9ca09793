/** @type {import('jest').Config} */
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  roots: ['<rootDir>/libs', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
    // jose 6 and oauth4webapi 3 ship ES modules only and Jest runs CommonJS here: they get transpiled (Node itself
    // loads them with require(esm)).
    '^.+/node_modules/(jose|oauth4webapi)/.+\\.js$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth4webapi)/)'],
  testEnvironment: 'node',
  moduleNameMapper: {
    '^@conduit-mcp/core(|/.*)$': '<rootDir>/libs/core/src$1',
    '^@conduit-mcp/server(|/.*)$': '<rootDir>/libs/server/src$1',
    '^@conduit-mcp/client(|/.*)$': '<rootDir>/libs/client/src$1',
    '^@conduit-mcp/redis(|/.*)$': '<rootDir>/libs/redis/src$1',
    '^@conduit-mcp/metrics(|/.*)$': '<rootDir>/libs/metrics/src$1',
  },
  testTimeout: 30000,
};
