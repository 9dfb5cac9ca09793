'use strict';
// A modern (2026-07-28) `subscriptions/listen` stream held open with node:http, for the scale-out section: when each
// `notifications/resources/updated` arrived, by URI, on the monotonic clock that processes of one machine share.
const http = require('node:http');

const MODERN = '2026-07-28';
const MAX_URIS = 1_000;
// An acknowledgement is one small event: a stream that sends this much without one is not what we expect.
const MAX_PENDING_BYTES = 1024 * 1024;

/** The machine's monotonic clock in ns (a bigint): on Linux every process reads the same one. */
const clockNs = () => process.hrtime.bigint();

/**
 * Opens a listen stream on `url` watching `uris`; resolves, once the server acknowledged all of them, with
 * `{ waitFor(uri, timeoutMs) → arrival (clock ns), close() }`. Rejects when the server refuses, agrees to fewer URIs,
 * or does not acknowledge within `timeoutMs`.
 */
function openListen(url, uris, timeoutMs = 10_000) {
  if (!Array.isArray(uris) || !uris.length || uris.length > MAX_URIS)
    throw new Error(`openListen: 1 to ${MAX_URIS} URIs (got ${Array.isArray(uris) ? uris.length : typeof uris})`);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'bench-listen',
    method: 'subscriptions/listen',
    params: {
      notifications: { resourceSubscriptions: uris },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const watched = new Set(uris);
  const arrivals = new Map();
  const waiters = new Map();
  let ended;
  return new Promise((resolve, reject) => {
    let acknowledged = false;
    const fail = (error) => {
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`listen on ${url}: no acknowledgement within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const end = (reason) => {
      if (ended) return;
      ended = reason;
      for (const [, waiter] of waiters) waiter.reject(new Error(`the listen stream ended: ${reason}`));
      waiters.clear();
      if (!acknowledged) fail(new Error(`listen on ${url}: the stream ended before its acknowledgement (${reason})`));
    };
    const onMessage = (message, at) => {
      if (message.method === 'notifications/subscriptions/acknowledged') {
        const agreed =
          (message.params && message.params.notifications && message.params.notifications.resourceSubscriptions) || [];
        if (agreed.length !== uris.length)
          return fail(new Error(`listen on ${url}: the server agreed to ${agreed.length} of ${uris.length} URIs`));
        acknowledged = true;
        clearTimeout(timer);
        resolve({ waitFor, close: () => req.destroy() });
      } else if (message.method === 'notifications/resources/updated') {
        const uri = message.params && message.params.uri;
        // The first arrival counts; a repeat would be a duplicate delivery, not a later one.
        if (watched.has(uri) && !arrivals.has(uri)) arrivals.set(uri, at);
        const waiter = waiters.get(uri);
        if (waiter) {
          waiters.delete(uri);
          waiter.resolve(at);
        }
      } else if (message.error) {
        fail(new Error(`listen on ${url}: ${JSON.stringify(message.error).slice(0, 300)}`));
      }
    };
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'subscriptions/listen',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        if (res.statusCode !== 200 || !String(res.headers['content-type']).includes('text/event-stream')) {
          let text = '';
          res.on('data', (c) => (text = (text + c).slice(0, 2000)));
          res.on('end', () => fail(new Error(`listen on ${url}: HTTP ${res.statusCode} ${text.slice(0, 300)}`)));
          return;
        }
        res.setEncoding('utf8');
        let pending = '';
        res.on('data', (chunk) => {
          // Every event of a chunk arrived when the chunk did.
          const at = clockNs();
          pending += chunk;
          let cut;
          while ((cut = pending.search(/\r?\n\r?\n/)) !== -1) {
            const event = pending.slice(0, cut);
            pending = pending.slice(cut).replace(/^\r?\n\r?\n/, '');
            const data = event
              .split(/\r?\n/)
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5).trimStart())
              .join('\n');
            if (!data) continue;
            let message;
            try {
              message = JSON.parse(data);
            } catch {
              return fail(new Error(`listen on ${url}: an event that is not JSON: ${data.slice(0, 200)}`));
            }
            onMessage(message, at);
          }
          if (pending.length > MAX_PENDING_BYTES)
            fail(new Error(`listen on ${url}: an event over ${MAX_PENDING_BYTES} bytes`));
        });
        res.on('end', () => end('the server ended it'));
        res.on('error', (error) => end(error.message));
      },
    );
    req.on('error', (error) => (acknowledged ? end(error.message) : fail(error)));
    req.on('close', () => end('closed'));
    req.end(body);

    /** The arrival time of the update of `uri` (at once if it came already); rejects after `waitMs`. */
    function waitFor(uri, waitMs) {
      if (arrivals.has(uri)) return Promise.resolve(arrivals.get(uri));
      if (ended) return Promise.reject(new Error(`the listen stream ended: ${ended}`));
      return new Promise((resolveWait, rejectWait) => {
        const wait = setTimeout(() => {
          waiters.delete(uri);
          rejectWait(new Error(`no update of ${uri} within ${waitMs} ms`));
        }, waitMs);
        waiters.set(uri, {
          resolve: (at) => (clearTimeout(wait), resolveWait(at)),
          reject: (error) => (clearTimeout(wait), rejectWait(error)),
        });
      });
    }
  });
}

module.exports = { openListen, clockNs };
