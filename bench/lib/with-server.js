'use strict';
// Runs `fn(started, url)` against a freshly started server and always stops it, also when `fn` throws.
const { startServer, stopServer } = require('./procs');

async function withServer(file, env, fn) {
  const started = await startServer(file, env);
  try {
    return await fn(started, `http://127.0.0.1:${started.port}/mcp`);
  } finally {
    await stopServer(started.child);
  }
}

module.exports = { withServer };
