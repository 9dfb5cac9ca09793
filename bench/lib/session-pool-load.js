'use strict';
// Legacy (2025-11-25) tools/call load spread over a pool of sessions: one autocannon run whose requests take the
// pool's session ids in turn, so that a session store is read for many sessions rather than one.
// `runLoad` is the general form (any request shape, optional session ids, autocannon's timeout, finer latencies and
// answers checked), for the scale sections (session-scale, connections).
const autocannon = require('autocannon');
const { load, summaryOf } = require('./load');
const { requestShape } = require('./protocol');
const { openSession, callEcho } = require('./legacy-sessions');
const { percentile } = require('./stats');

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

/** `size` ids taken evenly over `ids` (the first and the last included), or all of them when there are no more. */
function spreadSample(ids, size) {
  if (ids.length <= size) return [...ids];
  if (size === 1) return [ids[0]];
  return Array.from({ length: size }, (_, i) => ids[Math.round((i * (ids.length - 1)) / (size - 1))]);
}

/**
 * Latencies of one autocannon run in fractional ms, from its `response` events (autocannon's own histogram keeps
 * whole ms: a p50 under 1 ms reads 0). The first answer on each connection is left out: its latency includes the TCP
 * connect, and 1 024 connections opened at once overflow a listen backlog of 511 (SYN retried after 1 s), which
 * measures the kernel, not the server. Only 2xx answers that `check` accepts count (as autocannon counts 2xx only).
 */
function recordLatencies(instance) {
  const values = [];
  const seen = new WeakSet();
  let skipped = 0;
  let rejected = false;
  instance.on('response', (client, status, _bytes, ms) => {
    const bad = rejected;
    rejected = false;
    if (status < 200 || status >= 300 || bad) return;
    if (!seen.has(client.conn)) {
      seen.add(client.conn);
      skipped++;
      return;
    }
    values.push(ms);
  });
  return {
    // Called from the request's onResponse, which autocannon runs (synchronously) right before the 'response' event.
    reject: () => (rejected = true),
    summary() {
      const round = (x) => (x == null ? null : Math.round(x * 1000) / 1000);
      return {
        p50: round(percentile(values, 50)),
        p97_5: round(percentile(values, 97.5)),
        p99: round(percentile(values, 99)),
        max: round(values.length ? values.reduce((a, b) => (b > a ? b : a)) : null),
        count: values.length,
        firstPerConnection: skipped,
      };
    },
  };
}

/**
 * One autocannon run of `shape` ({ headers, body(id) }, see protocol.js) at `connections` for `seconds`. Options:
 * `ids` (session ids taken in turn, one per request), `timeoutS` (autocannon's per-request timeout, default its 10 s),
 * `fine` (record fractional-ms latencies: adds `latency`), `check(body)` (false: the answer counts in `rpcErrors`
 * and not in `latency`, e.g. a JSON-RPC error in a 200). Resolves { rps, p50, p99, errors, non2xx, total, latency?,
 * rpcErrors? } (p50/p99: autocannon's, whole ms, every answer included).
 */
function runLoad(url, shape, connections, seconds, { ids, timeoutS, fine = false, check } = {}) {
  if (ids && !ids.length) throw new Error('runLoad: no session to send on');
  let turn = 0;
  let rpcErrors = 0;
  let recorder;
  return new Promise((resolve, reject) => {
    const request = {
      setupRequest(req) {
        // autocannon hands each request a copy of the default headers: setting the session here is per request.
        if (ids) req.headers['mcp-session-id'] = ids[turn++ % ids.length];
        req.body = shape.body(nextId++);
        return req;
      },
    };
    if (check) {
      request.onResponse = (status, body) => {
        if (status >= 200 && status < 300 && !check(body)) {
          rpcErrors++;
          if (recorder) recorder.reject();
        }
      };
    }
    const options = { url, method: 'POST', connections, pipelining: 1, duration: seconds, headers: shape.headers };
    if (timeoutS) options.timeout = timeoutS;
    const instance = autocannon({ ...options, requests: [request] }, (error, r) => {
      if (error) return reject(error);
      const result = summaryOf(r);
      // A throw here would escape autocannon's timer and end the process: reject instead.
      if (recorder) {
        try {
          result.latency = recorder.summary();
        } catch (summaryError) {
          return reject(summaryError);
        }
      }
      if (check) result.rpcErrors = rpcErrors;
      resolve(result);
    });
    if (fine) recorder = recordLatencies(instance);
    // The runner stops the current load on SIGINT through this.
    load.current = instance;
  });
}

/** Runs `seconds` at `connections` over the sessions `ids`; resolves { rps, p50, p99, errors, non2xx, total }. */
function loadOverSessions(url, ids, connections, seconds, options = {}) {
  if (!ids.length) throw new Error('loadOverSessions: no session to send on');
  return runLoad(url, requestShape('legacy', 'tools/call'), connections, seconds, { ...options, ids });
}

module.exports = { openSessionPool, spreadSample, runLoad, loadOverSessions };
