'use strict';
// The three clients behind one shape, { call(text) → result, close() }, for a target
// { type: 'stdio', server: '<file in bench/servers>' } or { type: 'http', url }:
//   raw      lib/raw-stdio-client.js / lib/raw-http-client.js (plain fetch): the client-side limit
//   conduit  this project's McpClient (clients/conduit-client.ts, compiled into bench/.build), era legacy
//   sdk      the official SDK 2.x Client (@modelcontextprotocol/client), its default legacy era
//   baseline this project's McpClient at the --baseline commit (its worktree's bench/.build), era legacy
const path = require('node:path');
const { outDir } = require('./build');
const { root } = require('./procs');
const { stdioCommand, reap } = require('./stdio-servers');
const { openRawStdio } = require('./raw-stdio-client');
const { openRawHttp } = require('./raw-http-client');

let pathsRegistered;
/**
 * Requires a compiled bench module with the @conduit-mcp/* aliases resolved into `build` (bench/.build, or a
 * baseline's), as servers/boot.js does. One build per driver process: the aliases are registered once.
 */
function requireCompiled(relative, build = outDir) {
  if (pathsRegistered === undefined) {
    const { compilerOptions } = require(path.join(root, 'tsconfig.json'));
    require('tsconfig-paths').register({ baseUrl: build, paths: compilerOptions.paths });
    pathsRegistered = build;
  }
  if (pathsRegistered !== build) throw new Error(`one build per driver process (${pathsRegistered} is registered)`);
  return require(path.join(build, 'bench', relative));
}

async function openSdk(target) {
  const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
  const client = new Client({ name: 'bench-sdk-client', version: '1' });
  let transport;
  if (target.type === 'stdio') {
    const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/client/stdio');
    const cmd = stdioCommand(target.server);
    transport = new StdioClientTransport({
      command: cmd.command,
      args: cmd.args,
      cwd: cmd.cwd,
      env: { ...getDefaultEnvironment(), ...cmd.env },
    });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(target.url));
  }
  await client.connect(transport);
  return {
    call: (text) => client.callTool({ name: 'echo', arguments: { text } }),
    pid: transport.pid ?? undefined,
    close: () => client.close(),
  };
}

/**
 * Opens client `kind` ('raw' | 'conduit' | 'sdk' | 'baseline', the latter from `baselineBuild`) against `target`; the
 * returned close() also reaps a stdio child.
 */
async function openClient(kind, target, baselineBuild) {
  let opened;
  if (kind === 'raw') {
    opened = target.type === 'stdio' ? await openRawStdio(stdioCommand(target.server)) : await openRawHttp(target.url);
  } else if (kind === 'conduit' || kind === 'baseline') {
    if (kind === 'baseline' && !baselineBuild) throw new Error('the baseline client needs --baseline=<commit>');
    const { openConduitClient } = requireCompiled(
      'clients/conduit-client.js',
      kind === 'baseline' ? baselineBuild : outDir,
    );
    opened = await openConduitClient(
      target.type === 'stdio' ? { type: 'stdio', ...stdioCommand(target.server) } : { type: 'http', url: target.url },
    );
  } else if (kind === 'sdk') {
    opened = await openSdk(target);
  } else {
    throw new Error(`unknown client ${kind}`);
  }
  return {
    call: opened.call,
    async close() {
      try {
        await opened.close();
      } finally {
        await reap(opened.pid);
      }
    },
  };
}

module.exports = { openClient };
