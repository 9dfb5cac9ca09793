'use strict';
// Progress over many streams, legacy and modern: 50 calls in flight of the `progress` tool (conduit.ts with
// BENCH_PROGRESS=1), each a POST asking for progress (`_meta.progressToken`) whose answer is an SSE stream of
// `count` notifications/progress then the result; every call that ends is followed at once by another, for a fixed
// time. Legacy (2025-11-25): 50 sessions, one per stream in flight, as 50 clients would hold; modern (2026-07-28): no
// session. Per era: progress events/s delivered to the client, server CPU µs per event (/proc), RSS after a light
// warm-up, its peak (sampled every 250 ms) and 1 s after the load. A fresh server per run, the eras taking turns.
const http = require('node:http');
const net = require('node:net');
const { rssMb, cpuSeconds } = require('../lib/procs');
const { withServer } = require('../lib/with-server');
const { openSession } = require('../lib/legacy-sessions');
const { median, round, sleep } = require('../lib/stats');
const { table, targetLines } = require('../lib/markdown');

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const STREAMS = 50;
// Bytes of each event's message text: a short status line, as a tool would report.
const MESSAGE_BYTES = 64;
const SAMPLE_MS = 250;
const CALL_TIMEOUT_MS = 60_000;
// The warm-up compiles the code paths with a few short calls, small enough to leave next to nothing in what a legacy
// session keeps of its streams (the event store): what the load makes the server hold shows as growth.
const WARMUP = { rounds: 2, count: 50 };

const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MARKER = Buffer.from('"notifications/progress"');
const NEWLINE = 0x0a;
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');

/**
 * A keep-alive HTTP/1.1 connection over a raw socket, one streaming call at a time. node:http would call back once
 * per HTTP chunk, i.e. once per event, and the client must not be what limits the rate: here the body is never
 * decoded. Events are counted by searching MARKER in the bytes (an event is written in one piece, so an HTTP chunk's
 * framing never splits one); a chunked response ends with its last chunk, one with a Content-Length (an error) once
 * that many bytes came; the result is read in the last bytes.
 */
class RawConnection {
  constructor(target) {
    this.target = target;
    this.socket = undefined;
    this.pending = undefined;
  }

  /** Resolves { events, ok, error } (ok: HTTP 200 over SSE, ending with the answer "done <count>"). */
  call(headers, body, count) {
    if (!this.socket || this.socket.destroyed) this.connect();
    const head = [`POST ${this.target.path} HTTP/1.1`, `host: ${this.target.host}`];
    for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
    head.push(`content-length: ${Buffer.byteLength(body)}`, '', '');
    return new Promise((resolve) => {
      this.pending = { resolve, count, events: 0, head: Buffer.alloc(0), parsed: undefined, bodyBytes: 0 };
      this.socket.write(head.join('\r\n') + body);
    });
  }

  close() {
    if (this.socket) this.socket.destroy();
  }

  connect() {
    const socket = net.connect(this.target.port, this.target.hostname);
    socket.setNoDelay(true);
    socket.setTimeout(CALL_TIMEOUT_MS, () => socket.destroy(new Error(`nothing for ${CALL_TIMEOUT_MS} ms`)));
    // A connection given up may still report: only the current one speaks for the call in flight.
    socket.on('data', (chunk) => socket === this.socket && this.onData(chunk));
    socket.on('error', (error) => socket === this.socket && this.fail(error.message));
    socket.on('close', () => socket === this.socket && this.fail('the server closed the connection'));
    this.socket = socket;
  }

  onData(chunk) {
    const p = this.pending;
    if (!p) return;
    if (!p.parsed) {
      p.head = Buffer.concat([p.head, chunk]);
      const end = p.head.indexOf('\r\n\r\n');
      if (end === -1) return p.head.length > 65_536 ? this.fail('an HTTP head over 64 KiB') : undefined;
      const text = p.head.subarray(0, end).toString('latin1');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text);
      p.parsed = {
        status: /^HTTP\/1\.1 (\d+)/.exec(text)?.[1],
        sse: /\r\ncontent-type: *text\/event-stream/i.test(text),
        length: length ? Number(length[1]) : -1,
        close: /\r\nconnection: *close/i.test(text),
      };
      chunk = p.head.subarray(end + 4);
    }
    // A marker split between two reads (it holds no newline: only when the previous read did not end a line).
    if (p.last && chunk.length && p.last[p.last.length - 1] !== NEWLINE) {
      const seam = Buffer.concat([p.last.subarray(-(MARKER.length - 1)), chunk.subarray(0, MARKER.length - 1)]);
      for (let at = seam.indexOf(MARKER); at !== -1; at = seam.indexOf(MARKER, at + 1)) p.events++;
    }
    for (let at = chunk.indexOf(MARKER); at !== -1; at = chunk.indexOf(MARKER, at + MARKER.length)) p.events++;
    if (chunk.length) {
      p.prev = p.last;
      p.last = chunk;
      p.bodyBytes += chunk.length;
    }
    const done =
      p.parsed.length >= 0 ? p.bodyBytes >= p.parsed.length : this.lastBytes(p, LAST_CHUNK.length).equals(LAST_CHUNK);
    if (done) this.complete(p);
  }

  lastBytes(p, n) {
    if (!p.last) return Buffer.alloc(0);
    if (p.last.length >= n || !p.prev) return p.last.subarray(-n);
    return Buffer.concat([p.prev, p.last]).subarray(-n);
  }

  complete(p) {
    this.pending = undefined;
    const tail = this.lastBytes(p, 512).toString('utf8');
    const ok = p.parsed.status === '200' && p.parsed.sse && tail.includes(`"text":"done ${p.count}"`);
    // After a failure, or when the server says it closes, the next call starts on a fresh connection.
    if (!ok || p.parsed.close) this.close();
    p.resolve({ events: p.events, ok, error: ok ? undefined : `HTTP ${p.parsed.status} ${tail.slice(-300)}` });
  }

  fail(reason) {
    const p = this.pending;
    this.pending = undefined;
    this.close();
    if (p) p.resolve({ events: p.events, ok: false, error: reason });
  }
}

/** The headers and `_meta` of the calls of one stream in `era` (legacy: on its own session). */
function callShape(era, sessionId) {
  if (era === 'modern') {
    const headers = { ...BASE, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'progress' };
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    return { headers, meta };
  }
  return { headers: { ...BASE, 'mcp-protocol-version': LEGACY, 'mcp-session-id': sessionId }, meta: {} };
}

let nextId = 1;
const callBody = (shape, count) => {
  const id = nextId++;
  const params = {
    name: 'progress',
    arguments: { count, size: MESSAGE_BYTES },
    _meta: { ...shape.meta, progressToken: `p${id}` },
  };
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
};

/**
 * STREAMS workers, each calling back-to-back on its own shape until `seconds` passed (a call under way then
 * finishes and counts). Resolves { events, calls, failed, short, ms, firstFailure }.
 */
async function drive(connections, shapes, count, seconds) {
  const deadline = performance.now() + seconds * 1000;
  const totals = { events: 0, calls: 0, failed: 0, short: 0, firstFailure: undefined };
  const t0 = performance.now();
  const worker = async (shape, i) => {
    do {
      const r = await connections[i].call(shape.headers, callBody(shape, count), count);
      totals.calls++;
      totals.events += r.events;
      if (r.ok && r.events !== count) totals.short++;
      if (!r.ok) {
        totals.failed++;
        totals.firstFailure ??= r.error;
        await sleep(50);
      }
    } while (performance.now() < deadline);
  };
  await Promise.all(shapes.map((shape, i) => worker(shape, i)));
  return { ...totals, ms: performance.now() - t0 };
}

/** One era on a fresh server: sessions (legacy), warm-up, the timed load with RSS sampled, RSS after. */
async function measure(era, seconds, count, log) {
  return withServer('conduit.ts', { BENCH_PROGRESS: '1' }, async (started, url) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: STREAMS });
    const target = { hostname: '127.0.0.1', port: started.port, host: `127.0.0.1:${started.port}`, path: '/mcp' };
    const connections = Array.from({ length: STREAMS }, () => new RawConnection(target));
    try {
      const sessions = [];
      if (era === 'legacy') for (let i = 0; i < STREAMS; i++) sessions.push(await openSession(url, agent));
      const shapes = Array.from({ length: STREAMS }, (_, i) => callShape(era, sessions[i]));
      for (let i = 0; i < WARMUP.rounds; i++) {
        const w = await drive(connections, shapes, WARMUP.count, 0);
        if (w.failed || w.short) throw new Error(`warm-up: ${w.failed} failed, ${w.short} short: ${w.firstFailure}`);
      }
      await sleep(500);
      const before = rssMb(started.pid);
      const samples = [before];
      const timer = setInterval(() => samples.push(rssMb(started.pid)), SAMPLE_MS);
      const cpuBefore = cpuSeconds(started.pid);
      const clientBefore = process.cpuUsage();
      let r;
      try {
        r = await drive(connections, shapes, count, seconds);
      } finally {
        clearInterval(timer);
      }
      const cpuAfter = cpuSeconds(started.pid);
      const client = process.cpuUsage(clientBefore);
      samples.push(rssMb(started.pid));
      await sleep(1000);
      const after = rssMb(started.pid);
      const peak = Math.max(...samples.filter((x) => x != null));
      const result = {
        era,
        ...r,
        rate: r.events ? Math.round((r.events / r.ms) * 1000) : null,
        serverCpuUsPerEvent:
          cpuBefore == null || cpuAfter == null || !r.events ? null : ((cpuAfter - cpuBefore) * 1e6) / r.events,
        serverBusyPct: cpuBefore == null || cpuAfter == null ? null : ((cpuAfter - cpuBefore) * 1e5) / r.ms,
        clientCpuUsPerEvent: r.events ? (client.user + client.system) / r.events : null,
        before,
        peak,
        after,
        growth: before == null ? null : round(peak - before),
        samples,
      };
      log(
        `streaming ${era}: ${result.rate} events/s (${r.events} in ${round(r.ms / 1000, 2)} s, ${r.calls} calls, ` +
          `${r.failed} failed, ${r.short} short), server ${round(result.serverCpuUsPerEvent, 2)} µs/event, client ` +
          `${round(result.clientCpuUsPerEvent, 2)} µs/event, RSS ${before} → peak ${peak} → ${after} MB`,
      );
      return result;
    } finally {
      for (const connection of connections) connection.close();
      agent.destroy();
    }
  });
}

module.exports = {
  id: 'streaming',
  title: 'Progress over many streams: legacy and modern',
  async run({ quick, log = () => {} }) {
    const seconds = quick ? 3 : 10;
    const count = quick ? 1000 : 2000;
    const rounds = quick ? 2 : 3;
    const runs = { modern: [], legacy: [] };
    const failures = [];
    for (let i = 0; i < rounds; i++) {
      // Round by round the order flips (m l, l m, …): a drift of the machine favours neither era.
      for (const era of i % 2 ? ['legacy', 'modern'] : ['modern', 'legacy']) {
        try {
          runs[era].push(await measure(era, seconds, count, log));
        } catch (error) {
          log(`streaming ${era}: failed: ${error.message.split('\n')[0]}`);
          failures.push(`${era}: ${error.message.split('\n')[0].slice(0, 200)}`);
        }
      }
    }
    // A run whose calls failed or came short measured something else: it is shown, and left out of the medians.
    const sound = (era) => runs[era].filter((r) => !r.failed && !r.short);
    const med = (era, key) => {
      const xs = sound(era)
        .map((r) => r[key])
        .filter((x) => x != null);
      return xs.length ? median(xs) : null;
    };
    const ratio = (a, b) => (a == null || b == null || !b ? null : round(a / b, 2));
    const rateRatio = ratio(med('legacy', 'rate'), med('modern', 'rate'));
    // On a shared machine the rate follows the CPU the server gets; the CPU it spends per event moves far less.
    const cpuRatio = ratio(med('modern', 'serverCpuUsPerEvent'), med('legacy', 'serverCpuUsPerEvent'));
    const growth = round(med('legacy', 'growth'));
    // Below this share of its core the server waited for the CPU (or for the client): the rates then say little.
    const starved = [...runs.modern, ...runs.legacy].filter((r) => r.serverBusyPct != null && r.serverBusyPct < 80);
    const targets = [
      {
        target: 'legacy progress over 50 streams ≥ 0.85 × the modern rate',
        value: rateRatio,
        threshold: 0.85,
        met: rateRatio != null && rateRatio >= 0.85,
      },
      {
        target: 'legacy streaming memory growth ≤ 20 MB',
        value: growth,
        threshold: 20,
        met: growth != null && growth <= 20,
      },
    ];
    const rows = ['modern', 'legacy'].map((era) => [
      era === 'modern' ? 'modern (2026-07-28), no session' : `legacy (2025-11-25), ${STREAMS} sessions`,
      runs[era].length,
      runs[era].map((r) => r.rate).join(' / '),
      round(med(era, 'rate'), 0),
      runs[era].map((r) => `${r.calls} / ${r.failed} / ${r.short}`).join('; '),
      round(med(era, 'serverCpuUsPerEvent'), 2),
      round(med(era, 'serverBusyPct')),
      round(med(era, 'clientCpuUsPerEvent'), 2),
      round(med(era, 'before')),
      round(med(era, 'peak')),
      round(med(era, 'after')),
      round(med(era, 'growth')),
    ]);
    const markdown = [
      '## Progress over many streams: legacy and modern',
      '',
      `${STREAMS} \`progress\` calls in flight (conduit.ts, BENCH_PROGRESS=1), each a POST with a progressToken ` +
        `answered over SSE with ${count} notifications/progress (${MESSAGE_BYTES}-byte messages) then "done ${count}"; ` +
        `each call followed at once by the next for ${seconds} s (calls under way then finish and count). Legacy: one ` +
        `session per stream in flight. A fresh server per run, ${rounds} run${rounds > 1 ? 's' : ''} per era, the eras ` +
        `taking turns; warm-up ${WARMUP.rounds} × ${STREAMS} calls of ${WARMUP.count} events. RSS: 0.5 s after the ` +
        `warm-up, the peak of samples every ${SAMPLE_MS} ms during the load, 1 s after it. Medians of the runs.`,
      '',
      table(
        [
          'era',
          'runs',
          'events/s per run',
          'events/s',
          'calls / failed / short per run',
          'server CPU µs/event',
          'server CPU busy %',
          'client CPU µs/event',
          'RSS before MB',
          'RSS peak MB',
          'RSS after MB',
          'growth MB',
        ],
        rows,
      ),
      '',
      `Legacy ÷ modern: ${rateRatio ?? '—'} by events/s; ${cpuRatio ?? '—'} by server CPU per event (modern µs ÷ ` +
        `legacy µs: the rate ratio of a server that has its core to itself). "server CPU busy %": the server's CPU ` +
        `time over the load's duration (below 100: it waited, for the client or for a core shared with others).`,
      '',
      ...(starved.length
        ? [
            `**${starved.length} of ${runs.modern.length + runs.legacy.length} runs had the server's CPU busy under 80 %**: ` +
              `its core was shared (other processes on it) or it waited; their events/s follow the CPU share it got, ` +
              `and the ratio by server CPU per event is the one to read.`,
            '',
          ]
        : []),
      ...(failures.length ? [`Failed runs: ${failures.join('; ')}`, ''] : []),
      ...targetLines(targets),
      '',
    ].join('\n');
    const json = { seconds, count, rounds, streams: STREAMS, messageBytes: MESSAGE_BYTES, rateRatio, cpuRatio, runs };
    return { markdown, json, targets };
  },
};
