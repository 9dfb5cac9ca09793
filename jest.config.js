/** @type {import('jest').Config} */
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  roots: ['<rootDir>/libs', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }] },
  testEnvironment: 'node',
  moduleNameMapper: {
    '^@conduit-mcp/core(|/.*)$': '<rootDir>/libs/core/src$1',
    '^@conduit-mcp/server(|/.*)$': '<rootDir>/libs/server/src$1',
    '^@conduit-mcp/client(|/.*)$': '<rootDir>/libs/client/src$1',
  },
  testTimeout: 30000,
};
