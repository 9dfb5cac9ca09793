'use strict';
// Legacy (2025-11-25) tools/call load spread over a pool of sessions: one autocannon run whose requests take the
// pool's session ids in turn, so that a session store is read for many sessions rather than one.
const autocannon = require('autocannon');
const { load } = require('./load');
const { requestShape } = require('./protocol');
const { openSession, callEcho } = require('./legacy-sessions');

let nextId = 1;

/** Opens `count` sessions on `url` (one at a time) and checks each with an echo call; resolves their ids. */
async function openSessionPool(url, agent, count) {
  if (!Number.isInteger(count) || count < 1 || count > 1_000)
    throw new Error(`a session pool holds 1 to 1 000 sessions (got ${count})`);
  const ids = [];
  for (let i = 0; i < count; i++) {
    const id = await openSession(url, agent);
    if (!(await callEcho(url, agent, id)))
      throw new Error(`session ${id}: echo answered wrongly right after initialize`);
    ids.push(id);
  }
  return ids;
}

/** Runs `seconds` at `connections` over the sessions `ids`; resolves { rps, p50, p99, errors, non2xx, total }. */
function loadOverSessions(url, ids, connections, seconds) {
  if (!ids.length) throw new Error('loadOverSessions: no session to send on');
  const shape = requestShape('legacy', 'tools/call');
  let turn = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        connections,
        pipelining: 1,
        duration: seconds,
        headers: shape.headers,
        requests: [
          {
            setupRequest(req) {
              // autocannon hands each request a copy of the default headers: setting the session here is per request.
              req.headers['mcp-session-id'] = ids[turn++ % ids.length];
              req.body = shape.body(nextId++);
              return req;
            },
          },
        ],
      },
      (error, r) => {
        if (error) return reject(error);
        resolve({
          rps: Math.round(r.requests.total / r.duration),
          p50: r.latency.p50,
          p99: r.latency.p99,
          errors: r.errors + r.timeouts,
          non2xx: r.non2xx,
          total: r.requests.total,
        });
      },
    );
    // The runner stops the current load on SIGINT through this.
    load.current = instance;
  });
}

module.exports = { openSessionPool, loadOverSessions };
