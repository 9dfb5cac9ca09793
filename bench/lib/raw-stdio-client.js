'use strict';
// The minimal stdio client: spawns the server, initialize + notifications/initialized, then tools/call `echo` lines
// with fresh ids, each answer matched to its caller by id. No validation, no MCP state: the client-side limit.
const { spawn } = require('node:child_process');

const LEGACY = '2025-11-25';

/** Spawns `{ command, args, cwd, env }` and connects; resolves { call(text), pid, close() }. */
async function openRawStdio({ command, args, cwd, env }) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map();
  let nextId = 1;
  let pending = '';
  let stderr = '';
  let exited = null;
  const failAll = (error) => {
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  child.on('error', (error) => failAll(error));
  child.on('exit', (code, signal) => {
    exited = new Error(`stdio server exited (${code ?? signal})\n${stderr}`);
    failAll(exited);
  });
  child.stdin.on('error', () => {}); // EPIPE after the child died: reported through 'exit'
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    pending += chunk;
    let nl;
    while ((nl = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      const w = waiting.get(msg.id);
      if (!w) continue; // a server request or notification: not part of this benchmark
      waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(`JSON-RPC error ${msg.error.code}: ${msg.error.message}`));
      else w.resolve(msg.result);
    }
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      if (exited) return reject(exited);
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${JSON.stringify(params)}}\n`);
    });
  const close = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(resolve, 2000); // the caller reaps by PID if the server ignores the end of stdin
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.stdin.end(); // servers exit when stdin ends
    });
  try {
    await request('initialize', {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: 'bench-raw', version: '1' },
    });
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { call: (text) => request('tools/call', { name: 'echo', arguments: { text } }), pid: child.pid, close };
}

module.exports = { openRawStdio };
