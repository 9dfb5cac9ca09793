'use strict';
// One POST with node:http (optionally on a keep-alive agent): the section drivers need sockets reused across
// thousands of requests, which global fetch does not let us bound or count.
const http = require('node:http');

/** Resolves { status, headers, text }; rejects on socket errors or after `timeoutMs`. */
function post(url, headers, body, agent, timeoutMs = 30_000) {
  return send('POST', url, headers, body, agent, timeoutMs);
}

function send(method, url, headers, body = '', agent, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC message of a response, whether sent as JSON or as one SSE `data:` event. */
function jsonRpcOf(text) {
  if (text.startsWith('{')) return JSON.parse(text);
  const line = text.split('\n').find((l) => l.startsWith('data:'));
  return line ? JSON.parse(line.slice(5)) : undefined;
}

module.exports = { post, send, jsonRpcOf };
