'use strict';
// Many legacy (2025-11-25) sessions over one keep-alive agent: initialize + notifications/initialized each, a
// bounded number in flight. For the memory-per-session section.
const { post, send } = require('./http-post');

const LEGACY = '2025-11-25';
const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

const sessionHeaders = (id) => ({ ...BASE, 'mcp-protocol-version': LEGACY, 'mcp-session-id': id });

/** Opens one session; resolves its id, or throws with the HTTP status when refused. */
async function openSession(url, agent) {
  const r = await post(url, BASE, INIT, agent);
  const id = r.headers['mcp-session-id'];
  if (r.status !== 200 || !id) throw new Error(`initialize: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  const n = await post(url, sessionHeaders(id), '{"jsonrpc":"2.0","method":"notifications/initialized"}', agent);
  if (n.status >= 300) throw new Error(`notifications/initialized: HTTP ${n.status} ${n.text.slice(0, 200)}`);
  return id;
}

/** Opens `count` sessions, `concurrency` at a time; resolves { ids, refused, firstError, ms }. */
async function openSessions(url, agent, count, concurrency) {
  const ids = [];
  let refused = 0;
  let firstError;
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      next++;
      try {
        ids.push(await openSession(url, agent));
      } catch (error) {
        refused++;
        firstError = firstError || error.message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ids, refused, firstError, ms: performance.now() - t0 };
}

/** One echo tools/call on a session; true when answered correctly (false: the session is gone). */
async function callEcho(url, agent, id, n = 1) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: n,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'alive' } },
  });
  const r = await post(url, sessionHeaders(id), body, agent);
  return r.status === 200 && r.text.includes('"text":"alive"');
}

/** Ends a session with DELETE. */
function closeSession(url, agent, id) {
  return send('DELETE', url, sessionHeaders(id), '', agent);
}

module.exports = { openSession, openSessions, callEcho, closeSession };
