'use strict';
// The servers and what is sent to them. `group`: raw (the limit), self (this project), peer, baseline (this project
// at an earlier commit, with --baseline=<commit>).
const CONCURRENCY = [1, 16, 64];

const servers = [
  { id: 'raw', label: 'raw node:http (limit)', group: 'raw', file: 'raw-http.js', era: 'modern' },
  {
    id: 'conduit-modern',
    label: 'conduit modern (guard+interceptor)',
    group: 'self',
    file: 'conduit.ts',
    era: 'modern',
  },
  { id: 'conduit-legacy', label: 'conduit legacy (1 session)', group: 'self', file: 'conduit.ts', era: 'legacy' },
  {
    id: 'conduit-modern-fastify',
    label: 'conduit modern on Fastify',
    group: 'self',
    file: 'conduit.ts',
    env: { BENCH_ADAPTER: 'fastify' },
    era: 'modern',
  },
  {
    id: 'conduit-legacy-fastify',
    label: 'conduit legacy on Fastify (1 session)',
    group: 'self',
    file: 'conduit.ts',
    env: { BENCH_ADAPTER: 'fastify' },
    era: 'legacy',
  },
  {
    id: 'sdk-modern',
    label: 'SDK 2.x modern (createMcpHandler)',
    group: 'peer',
    file: 'sdk.js',
    env: { BENCH_MODE: 'modern' },
    era: 'modern',
  },
  {
    id: 'sdk-legacy',
    label: 'SDK 2.x legacy (1 session)',
    group: 'peer',
    file: 'sdk.js',
    env: { BENCH_MODE: 'legacy' },
    era: 'legacy',
  },
  {
    id: 'sdk-legacy-stateless',
    label: 'SDK 2.x legacy (createMcpHandler stateless fallback)',
    group: 'peer',
    file: 'sdk.js',
    env: { BENCH_MODE: 'modern' },
    era: 'legacy',
    sessionless: true,
  },
  {
    id: 'rekog-modern',
    label: '@rekog/mcp-nest 2.x modern',
    group: 'peer',
    file: 'rekog.ts',
    era: 'modern',
    requires: '@rekog/mcp-nest',
  },
  {
    id: 'rekog-legacy',
    label: '@rekog/mcp-nest 2.x legacy (1 session)',
    group: 'peer',
    file: 'rekog.ts',
    env: { BENCH_MODE: 'legacy' },
    era: 'legacy',
    requires: '@rekog/mcp-nest',
  },
];

// tools/list on this project's server with few and many tools (concurrency 16 only).
const listScenarios = [
  {
    id: 'conduit-list-5',
    label: 'conduit modern tools/list, 5 tools',
    file: 'conduit.ts',
    env: { BENCH_TOOLS: '5' },
    era: 'modern',
    method: 'tools/list',
  },
  {
    id: 'conduit-list-50',
    label: 'conduit modern tools/list, 50 tools',
    file: 'conduit.ts',
    env: { BENCH_TOOLS: '50' },
    era: 'modern',
    method: 'tools/list',
  },
];

module.exports = { servers, listScenarios, CONCURRENCY };
