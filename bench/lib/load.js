'use strict';
// One autocannon run against a server (in this process, so on the load generator's CPU).
const autocannon = require('autocannon');

let nextId = 1;

/** What a run resolves, from autocannon's result: { rps, p50, p99, errors, non2xx, total }. */
function summaryOf(r) {
  return {
    rps: Math.round(r.requests.total / r.duration),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    total: r.requests.total,
  };
}

/** Runs `seconds` at `connections`; resolves { rps, p50, p99, errors, non2xx, total }. */
function load(url, shape, connections, seconds) {
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
              req.body = shape.body(nextId++);
              return req;
            },
          },
        ],
      },
      (error, r) => (error ? reject(error) : resolve(summaryOf(r))),
    );
    load.current = instance;
  });
}

module.exports = { load, summaryOf };
