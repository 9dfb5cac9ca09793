'use strict';
// The fanout section's stream reader: N SSE streams held by this one process on raw sockets (net.connect with one
// shared `onread` buffer, an HTTP/1.1 and chunked reader of its own), each scanned for `notifications/resources/updated`
// events as its chunks come, and the rounds they take part in (per stream: the arrival of the chunk carrying the
// round's URI, on the machine's monotonic clock). A stream is a legacy or raw GET (open once its 200 head arrived) or a
// modern subscriptions/listen POST (open once the server acknowledged every URI).
const net = require('node:net');
const { clockNs } = require('./listen-stream');

const OPEN_TIMEOUT_MS = 15_000;
// A stream that sends this much without a complete event is not what we expect.
const MAX_PENDING_CHARS = 1024 * 1024;
// Every stream's socket reads into this one buffer (net's `onread`: no buffer made per read, no stream machinery);
// each read is turned into text before the callback returns.
const READ_BUFFER = Buffer.alloc(64 * 1024);
const UPDATED = 'notifications/resources/updated';
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
// The round of an update: the number its URI ends with.
const URI_RE = /"uri":"bench:\/\/fanout\/(\d+)"/;

/**
 * The response on a stream's socket, read by hand: node:http's client (and a socket's stream machinery) costs several
 * µs more per chunk, and with thousands of streams in this one process that is what the last arrivals would measure. Text is latin1 (a character
 * per byte, as chunk sizes count); what is looked for is ASCII. `push` returns the body text a chunk carried.
 */
class RawResponse {
  constructor() {
    this.head = '';
    this.status = undefined;
    this.isEventStream = false;
    this.chunked = false;
    this.refusal = '';
    // Chunked decoding: bytes left of the current chunk's data, the CRLF after it, the size line read so far.
    this.left = 0;
    this.skip = 0;
    this.line = '';
    this.ended = false;
  }

  push(text) {
    if (this.status === undefined) {
      this.head += text;
      const end = this.head.indexOf('\r\n\r\n');
      if (end === -1) return '';
      const lines = this.head.slice(0, end).split('\r\n');
      this.status = Number(lines[0].split(' ')[1]);
      const headers = new Map(
        lines
          .slice(1)
          .map((line) => [
            line.slice(0, line.indexOf(':')).trim().toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
      );
      this.isEventStream = this.status === 200 && String(headers.get('content-type')).includes('text/event-stream');
      this.chunked = /chunked/i.test(headers.get('transfer-encoding') || '');
      text = this.head.slice(end + 4);
      this.head = '';
    }
    if (this.ended) return '';
    const body = this.chunked ? this.dechunk(text) : text;
    if (!this.isEventStream) this.refusal = (this.refusal + body).slice(0, 300);
    return body;
  }

  dechunk(text) {
    let out = '';
    let i = 0;
    while (i < text.length) {
      if (this.left > 0) {
        const take = Math.min(this.left, text.length - i);
        out += text.slice(i, i + take);
        i += take;
        this.left -= take;
        if (this.left === 0) this.skip = 2;
      } else if (this.skip > 0) {
        i++;
        this.skip--;
      } else {
        const eol = text.indexOf('\n', i);
        if (eol === -1) {
          this.line += text.slice(i);
          break;
        }
        const size = parseInt(this.line + text.slice(i, eol), 16);
        this.line = '';
        i = eol + 1;
        if (Number.isNaN(size)) throw new Error('a chunk size that is not hexadecimal');
        // The last chunk: the server ended the response (what follows is trailers); the socket's close says so.
        if (size === 0) {
          this.ended = true;
          break;
        }
        this.left = size;
      }
    }
    return out;
  }
}

/**
 * N streams of this process and the rounds they take part in. Each stream's chunks are scanned as they come, cheaply
 * (split into events, a substring test, one regex for the URI): thousands of streams share this one process, which
 * must not become what the arrival times measure.
 */
class Streams {
  constructor(count) {
    this.count = count;
    this.base = clockNs();
    this.sockets = [];
    this.rounds = new Map();
    this.duplicates = 0;
    this.strays = 0;
    this.late = 0;
    this.ended = 0;
    this.errors = 0;
    this.firstError = undefined;
    this.closing = false;
  }

  /** ms since this set was made, on the machine's monotonic clock. */
  ms(ns) {
    return Number(ns - this.base) / 1e6;
  }

  /** Registers round `seq` before its publish; `promise` resolves once every stream got its update. */
  expect(seq) {
    const r = { arrivals: new Float64Array(this.count).fill(NaN), remaining: this.count, closed: false };
    r.promise = new Promise((resolve) => (r.done = resolve));
    this.rounds.set(seq, r);
    return r;
  }

  arrive(index, seq, atNs) {
    const r = this.rounds.get(seq);
    if (!r) return void this.strays++;
    if (!Number.isNaN(r.arrivals[index])) return void this.duplicates++;
    if (r.closed) this.late++;
    r.arrivals[index] = this.ms(atNs);
    if (--r.remaining === 0) r.done();
  }

  /**
   * Opens stream `index` (`request`: method, headers, body; `uris` the modern acknowledgement must agree to all of,
   * none for a legacy GET, which is open once its 200 head arrived). Resolves once open.
   */
  open(index, url, request) {
    return new Promise((resolve, reject) => {
      let opened = false;
      let refusal;
      const fail = (error) => {
        clearTimeout(timer);
        clearTimeout(refusal);
        socket.destroy();
        reject(new Error(`stream ${index}: ${error.message}`));
      };
      const timer = setTimeout(() => fail(new Error(`not open within ${OPEN_TIMEOUT_MS} ms`)), OPEN_TIMEOUT_MS);
      const ready = () => {
        opened = true;
        clearTimeout(timer);
        resolve();
      };
      const broken = (message) => {
        if (!opened) return fail(new Error(message));
        if (this.closing) return;
        this.errors++;
        this.firstError = this.firstError || `stream ${index}: ${message}`;
      };
      const onEvent = (event, at) => {
        if (event.includes(UPDATED)) {
          const m = URI_RE.exec(event);
          if (m) this.arrive(index, Number(m[1]), at);
          else this.strays++;
        } else if (event.includes(ACKNOWLEDGED)) {
          const data = event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5))
            .join('\n');
          const agreed = JSON.parse(data).params?.notifications?.resourceSubscriptions || [];
          if (agreed.length !== request.uris.length)
            return fail(new Error(`the server agreed to ${agreed.length} of ${request.uris.length} URIs`));
          ready();
        } else if (event.includes('"error"')) {
          broken(`an error event: ${event.slice(0, 300)}`);
        }
      };
      const response = new RawResponse();
      let pending = '';
      const { hostname, port, pathname } = new URL(url);
      const onRead = (length, buffer) => {
        // Every event of a chunk arrived when the chunk did.
        const at = clockNs();
        let text;
        try {
          text = response.push(buffer.toString('latin1', 0, length));
        } catch (error) {
          return broken(error.message);
        }
        if (response.status === undefined) return;
        // Any other answer is a refusal: its body, once it came, says why.
        if (!response.isEventStream) {
          refusal = refusal || setTimeout(() => fail(new Error(`HTTP ${response.status} ${response.refusal}`)), 200);
          return;
        }
        if (!request.uris && !opened) ready();
        pending += text;
        const cut = pending.lastIndexOf('\n\n');
        if (cut === -1) {
          if (pending.length > MAX_PENDING_CHARS) broken(`an event over ${MAX_PENDING_CHARS} characters`);
          return;
        }
        const events = pending.slice(0, cut).split('\n\n');
        pending = pending.slice(cut + 2);
        for (const event of events) onEvent(event, at);
      };
      const socket = net.connect({
        host: hostname,
        port: Number(port),
        onread: { buffer: READ_BUFFER, callback: onRead },
      });
      socket.on('close', () => {
        if (!opened) {
          const what = response.status === undefined ? 'closed before an answer' : `HTTP ${response.status}`;
          return fail(new Error(`${what} ${response.refusal}`));
        }
        if (!this.closing) this.ended++;
      });
      socket.on('error', (error) => broken(error.message));
      this.sockets.push(socket);
      const headers = {
        host: `${hostname}:${port}`,
        ...request.headers,
        'content-length': Buffer.byteLength(request.body),
      };
      const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(`${request.method} ${pathname} HTTP/1.1\r\n${head.join('')}\r\n${request.body}`);
    });
  }

  close() {
    this.closing = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets = [];
  }
}

module.exports = { Streams, RawResponse };
