'use strict';
// One notification to many open SSE streams (issue 19), on conduit.ts with BENCH_FANOUT=1 (bench/servers/
// fanout.tools.ts). For each kind of stream and each count N, a fresh server gets N streams from this process: raw (the
// limit: bench/servers/raw-sse.js, plain node:http writing one event to every GET /sse response), legacy (2025-11-25)
// sessions, each subscribed to bench://fanout/0..R with resources/subscribe and holding its standalone GET stream open,
// or modern (2026-07-28) subscriptions/listen streams watching the same URIs. Then two warm-up rounds and R rounds:
// `loop_stats` reset, `fanout` publishes bench://fanout/<r>, the driver waits until every stream got the update,
// `loop_stats` again: the server's CPU and largest event-loop delay for the broadcast, and per stream publish → arrival
// on the machine's monotonic clock (which the server and this process both read). Then the heap a broadcast leaves
// behind on S legacy sessions with no stream (each keeps its undelivered notifications): `toggle` (a tools list change)
// B times on a server run with --expose-gc, the heap after a GC before and after. The streams are read by
// bench/lib/sse-socket-reader.js.
const http = require('node:http');
const { withServer } = require('../lib/with-server');
const { post, jsonRpcOf } = require('../lib/http-post');
const { openSession, openSessions } = require('../lib/legacy-sessions');
const { Streams } = require('../lib/sse-socket-reader');
const { median, percentile, round, sleep } = require('../lib/stats');
const { table } = require('../lib/markdown');
const { targetLine } = require('../lib/section-table');

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
// Bounds of the server: sessions (BENCH_MAX_SESSIONS), and connections and listen streams (BENCH_MAX_CONNECTIONS),
// well past the counts here: every stream comes from one client address.
const SERVER_ENV = { BENCH_FANOUT: '1', BENCH_MAX_SESSIONS: '60000', BENCH_MAX_CONNECTIONS: '60000' };
const SETUP_CONCURRENCY = 32;
const ROUND_TIMEOUT_MS = 30_000;
// Between rounds: the previous broadcast's writes and garbage settle before the next reset.
const ROUND_GAP_MS = 100;
const TOGGLE_GAP_MS = 200;
const MB = 1024 * 1024;
const FULL_SESSIONS = 50_000;
const CPU_THRESHOLD_MS = 15;
const P99_THRESHOLD_MS = 60;
const HEAP_THRESHOLD_MB = 1;
const TARGET_STREAMS = 5_000;

const LIST_CHANGED = 'notifications/tools/list_changed';
const uriOf = (seq) => `bench://fanout/${seq}`;
const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const legacyHeaders = (id) => ({ ...BASE_HEADERS, 'mcp-protocol-version': LEGACY, 'mcp-session-id': id });
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** Calls a tool of fanout.tools.ts (modern, no session); resolves its answer, which is JSON text. */
async function callTool(url, agent, name, args) {
  const headers = { ...BASE_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name };
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args, _meta: META },
  });
  const r = await post(url, headers, body, agent, 60_000);
  const message = r.status === 200 ? jsonRpcOf(r.text) : undefined;
  const text = message && message.result && !message.result.isError && message.result.content?.[0]?.text;
  if (typeof text !== 'string') throw new Error(`${name}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Posts `args` to /<name> of raw-sse.js (`fanout`, `loop_stats`); resolves its JSON answer. */
async function callRaw(url, agent, name, args) {
  const r = await post(new URL(`/${name}`, url), { 'content-type': 'application/json' }, JSON.stringify(args), agent);
  if (r.status !== 200) throw new Error(`${name}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  return JSON.parse(r.text);
}

/** Runs `task(i)` for i in 0..count-1, `concurrency` at a time; stops scheduling at the first failure and throws it. */
async function inPool(count, concurrency, task) {
  let next = 0;
  let failure;
  const worker = async () => {
    while (next < count && !failure) {
      const i = next++;
      try {
        await task(i);
      } catch (error) {
        failure = failure || error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, concurrency) }, worker));
  if (failure) throw failure;
}

/** A GET /sse stream of raw-sse.js, which gets every event the server writes (it has no subscriptions). */
function openRaw(streams, index, url) {
  return streams.open(index, new URL('/sse', url).href, {
    method: 'GET',
    headers: { accept: 'text/event-stream' },
    body: '',
  });
}

/** A legacy session subscribed to `uris`, then its standalone GET stream open. */
async function openLegacy(streams, index, url, agents, uris) {
  const id = await openSession(url, agents.setup);
  for (const [n, uri] of uris.entries()) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: n + 1, method: 'resources/subscribe', params: { uri } });
    const r = await post(url, legacyHeaders(id), body, agents.setup);
    if (r.status !== 200 || !jsonRpcOf(r.text)?.result)
      throw new Error(`resources/subscribe ${uri}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  }
  const headers = { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY, 'mcp-session-id': id };
  await streams.open(index, url, { method: 'GET', headers, body: '' });
}

/** A subscriptions/listen stream watching `uris`, open once acknowledged. */
function openModern(streams, index, url, agents, uris) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: `fanout-${index}`,
    method: 'subscriptions/listen',
    params: {
      notifications: { resourceSubscriptions: uris },
      _meta: { ...META, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } },
    },
  });
  const headers = {
    ...BASE_HEADERS,
    'mcp-protocol-version': MODERN,
    'mcp-method': 'subscriptions/listen',
  };
  return streams.open(index, url, { method: 'POST', headers, body, uris });
}

// The kinds of stream: the server each runs on, how a stream opens, how `fanout` and `loop_stats` are called.
const KINDS = {
  raw: { server: 'raw-sse.js', env: {}, open: openRaw, call: callRaw },
  legacy: { server: 'conduit.ts', env: SERVER_ENV, open: openLegacy, call: callTool },
  modern: { server: 'conduit.ts', env: SERVER_ENV, open: openModern, call: callTool },
};

/**
 * One broadcast (`call(name, args)`: `fanout` or `loop_stats` on the server under test): resolves its figures (ms), the
 * deliveries of every stream (ms, NaN: lost) among them.
 */
async function broadcast(call, streams, seq) {
  await call('loop_stats', { reset: true });
  const r = streams.expect(seq);
  const clientCpu = process.cpuUsage();
  const answer = await call('fanout', { seq });
  let timer;
  await Promise.race([r.promise, new Promise((resolve) => (timer = setTimeout(resolve, ROUND_TIMEOUT_MS)))]);
  clearTimeout(timer);
  r.closed = true;
  const stats = await call('loop_stats', { reset: false });
  const client = process.cpuUsage(clientCpu);
  const published = streams.ms(BigInt(answer.publishedAt));
  const deliveries = Array.from(r.arrivals, (at) => at - published);
  const arrived = deliveries.filter((d) => !Number.isNaN(d));
  return {
    seq,
    deliveries,
    lost: deliveries.length - arrived.length,
    lastMs: arrived.length ? Math.max(...arrived) : null,
    serverCpuMs: stats.cpuUs / 1000,
    maxDelayMs: stats.maxDelayMs,
    elu: stats.elu,
    publishMs: answer.publishMs,
    clientCpuMs: (client.user + client.system) / 1000,
  };
}

/** N streams of one kind on a fresh server, two warm-up rounds and `rounds` rounds. */
async function measureStreams(kind, count, rounds, log) {
  const { server, env, open, call } = KINDS[kind];
  return withServer(server, env, async (started, url) => {
    const agents = {
      setup: new http.Agent({ keepAlive: true, maxSockets: SETUP_CONCURRENCY }),
      control: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    };
    const streams = new Streams(count);
    // Round 0 is the warm-up; round `rounds + 1` is watched by nobody (the control).
    const uris = Array.from({ length: rounds + 1 }, (_, seq) => uriOf(seq));
    try {
      const t0 = performance.now();
      await inPool(count, SETUP_CONCURRENCY, (i) => open(streams, i, url, agents, uris));
      const setupS = (performance.now() - t0) / 1000;
      log(`fanout ${kind} ${count}: ${count} streams open in ${setupS.toFixed(1)} s`);
      await sleep(500);
      const control = (name, args) => call(url, agents.control, name, args);
      // Two warm-up rounds on URI 0 (not counted): the write path of node:http itself takes about two rounds of
      // thousands of writes to be compiled, for every kind alike.
      await broadcast(control, streams, 0);
      await sleep(ROUND_GAP_MS);
      const warmup = await broadcast(control, streams, 0);
      const measured = [];
      for (let seq = 1; seq <= rounds; seq++) {
        await sleep(ROUND_GAP_MS);
        const r = await broadcast(control, streams, seq);
        log(
          `fanout ${kind} ${count} round ${seq}: server CPU ${r.serverCpuMs.toFixed(1)} ms, max loop delay ` +
            `${r.maxDelayMs.toFixed(1)} ms, last arrival ${r.lastMs?.toFixed(1)} ms, lost ${r.lost}, client CPU ` +
            `${r.clientCpuMs.toFixed(1)} ms`,
        );
        measured.push(r);
      }
      // The control: the same call on a URI no stream watches (the call and its scan of the streams, no delivery).
      // Not for raw: its every stream gets every event.
      let nobody;
      if (kind !== 'raw') {
        await sleep(ROUND_GAP_MS);
        await control('loop_stats', { reset: true });
        await control('fanout', { seq: rounds + 1 });
        nobody = await control('loop_stats', { reset: false });
      }
      return summarize(kind, count, rounds, setupS, warmup, measured, nobody, streams);
    } finally {
      streams.close();
      for (const agent of Object.values(agents)) agent.destroy();
    }
  });
}

function summarize(kind, count, rounds, setupS, warmup, measured, control, streams) {
  // A lost update counts as the round's timeout in the delivery percentiles.
  const deliveries = measured.flatMap((r) => r.deliveries.map((d) => (Number.isNaN(d) ? ROUND_TIMEOUT_MS : d)));
  const of = (key) => measured.map((r) => r[key]).filter((x) => x != null);
  const cpu = of('serverCpuMs');
  const cpuMedian = median(cpu);
  return {
    kind,
    count,
    rounds,
    setupS: round(setupS, 1),
    delivered: deliveries.length - measured.reduce((s, r) => s + r.lost, 0),
    lost: measured.reduce((s, r) => s + r.lost, 0),
    warmupLost: warmup.lost,
    duplicates: streams.duplicates,
    strays: streams.strays,
    late: streams.late,
    ended: streams.ended,
    errors: streams.errors,
    firstError: streams.firstError,
    clockAnomalies: deliveries.filter((d) => d < -0.5).length,
    p50: round(percentile(deliveries, 50), 2),
    p99: round(percentile(deliveries, 99), 2),
    max: round(percentile(deliveries, 100), 2),
    lastMedian: round(median(of('lastMs')), 2),
    serverCpuMs: round(cpuMedian, 2),
    serverCpuMinMs: round(Math.min(...cpu), 2),
    serverCpuMaxMs: round(Math.max(...cpu), 2),
    cpuUsPerStream: round((cpuMedian * 1000) / count, 2),
    maxDelayMs: round(median(of('maxDelayMs')), 2),
    publishMs: round(median(of('publishMs')), 2),
    clientCpuMs: round(median(of('clientCpuMs')), 1),
    warmupCpuMs: round(warmup.serverCpuMs, 2),
    controlCpuMs: control ? round(control.cpuUs / 1000, 2) : null,
    perRound: measured.map(({ deliveries: _, ...r }) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v, 2)])),
    ),
  };
}

/** GETs the stream of session `id` and counts the tools list changes it receives within `waitMs`. */
function countKept(url, id, expected, waitMs = 2_000) {
  return new Promise((resolve) => {
    let seen = 0;
    let text = '';
    const finish = () => {
      clearTimeout(timer);
      req.destroy();
      resolve(seen);
    };
    const timer = setTimeout(finish, waitMs);
    const headers = { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY, 'mcp-session-id': id };
    const req = http.request(url, { method: 'GET', headers, agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
        seen = text.split(LIST_CHANGED).length - 1;
        if (seen >= expected) finish();
      });
    });
    req.on('error', finish);
    req.end();
  });
}

/** The heap `broadcasts` tools list changes leave on `count` legacy sessions without a stream. */
async function measureKept(count, broadcasts, log) {
  const flags = [process.env.BENCH_NODE_FLAGS, '--expose-gc'].filter(Boolean).join(' ');
  return withServer('conduit.ts', { ...SERVER_ENV, BENCH_NODE_FLAGS: flags }, async (started, url) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: SETUP_CONCURRENCY });
    const control = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // Warm-up: the toggle path compiled before anything is read (two flips: the tool list is as it was).
      for (let i = 0; i < 2; i++) await callTool(url, control, 'toggle', {});
      const t0 = performance.now();
      const opened = await openSessions(url, agent, count, SETUP_CONCURRENCY);
      if (opened.refused) throw new Error(`${opened.refused} of ${count} sessions refused (${opened.firstError})`);
      log(`fanout kept: ${count} sessions open in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await sleep(500);
      // The control: the CPU of an interval as long as a toggle's, without one.
      const idle = [];
      for (let i = 0; i < 3; i++) {
        await callTool(url, control, 'loop_stats', { reset: true });
        await sleep(TOGGLE_GAP_MS);
        idle.push((await callTool(url, control, 'loop_stats', { reset: false })).cpuUs / 1000);
      }
      const before = (await callTool(url, control, 'loop_stats', { reset: true })).heapUsed;
      if (typeof before !== 'number')
        throw new Error('loop_stats gave no heapUsed: the server runs without --expose-gc');
      const toggles = [];
      for (let b = 0; b < broadcasts; b++) {
        await callTool(url, control, 'loop_stats', { reset: true });
        await callTool(url, control, 'toggle', {});
        await sleep(TOGGLE_GAP_MS);
        const s = await callTool(url, control, 'loop_stats', { reset: false });
        toggles.push({
          cpuMs: round(s.cpuUs / 1000, 2),
          maxDelayMs: round(s.maxDelayMs, 2),
          heapBytes: s.heapUsed,
        });
      }
      const after = (await callTool(url, control, 'loop_stats', { reset: true })).heapUsed;
      // Are notifications kept at all? A session that opens its stream now gets what it kept.
      const kept = await countKept(url, opened.ids[opened.ids.length - 1], broadcasts);
      const perBroadcastMb = (after - before) / MB / broadcasts;
      // The first broadcast and the later ones apart: a server that keeps identical broadcasts once grows in one step.
      const firstMb = (toggles[0].heapBytes - before) / MB;
      const laterMb =
        broadcasts > 1 ? (toggles[broadcasts - 1].heapBytes - toggles[0].heapBytes) / MB / (broadcasts - 1) : null;
      const toggleCpuMs = median(toggles.map((t) => t.cpuMs));
      const idleCpuMs = median(idle);
      const r = {
        count,
        broadcasts,
        beforeMb: round(before / MB, 2),
        afterMb: round(after / MB, 2),
        perBroadcastMb: round(perBroadcastMb, 3),
        scaledMb: round((perBroadcastMb * FULL_SESSIONS) / count, 3),
        bytesPerSession: round((after - before) / broadcasts / count, 1),
        firstMb: round(firstMb, 3),
        laterMb: round(laterMb, 3),
        toggleCpuMs: round(toggleCpuMs, 2),
        idleCpuMs: round(idleCpuMs, 2),
        netToggleCpuMs: round(toggleCpuMs - idleCpuMs, 2),
        maxDelayMs: round(median(toggles.map((t) => t.maxDelayMs)), 2),
        kept,
        toggles,
      };
      log(
        `fanout kept: heap ${r.beforeMb} → ${r.afterMb} MB over ${broadcasts} broadcasts (${r.perBroadcastMb} MB each), ` +
          `toggle CPU ${r.toggleCpuMs} ms (idle ${r.idleCpuMs} ms), the last session's stream got ${kept} list changes`,
      );
      return r;
    } finally {
      agent.destroy();
      control.destroy();
    }
  });
}

const fmt = (x, d = 1) => (x == null || Number.isNaN(x) ? '—' : Number(x).toFixed(d));
/** 50000 → '50 000'. */
const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
// A refusal past the server's bounds means the server under test was started without room for the streams.
const boundsHint = (error) =>
  /HTTP 503|Too many open subscriptions/.test(error.message)
    ? ' (the server refused past a bound: conduit.ts must raise http.connections and maxSubscriptions with ' +
      'BENCH_MAX_CONNECTIONS)'
    : '';
const firstLine = (error) => error.message.split('\n')[0].slice(0, 160);

/** The line under the table: the raw p99 at 5 000 streams and each kind's p99 over it. */
function rawLine(rows) {
  const at = (kind) => rows.find((r) => r.kind === kind && r.count === TARGET_STREAMS && !r.error);
  const raw = at('raw');
  if (!raw || !raw.p99) return `Raw limit at ${thousands(TARGET_STREAMS)} streams: not measured.`;
  const ratios = ['legacy', 'modern'].map((kind) => {
    const r = at(kind);
    return `${kind} ${r ? `${fmt(r.p99, 2)} ms, ${fmt(r.p99 / raw.p99, 1)} × raw p99` : 'not measured'}`;
  });
  return (
    `Raw limit at ${thousands(TARGET_STREAMS)} streams: delivery p99 ${fmt(raw.p99, 2)} ms (last arrival ` +
    `${fmt(raw.lastMedian, 2)} ms, server CPU ${fmt(raw.cpuUsPerStream, 2)} µs per stream). p99 at ` +
    `${thousands(TARGET_STREAMS)}: ${ratios.join('; ')}.`
  );
}

function streamRow(r) {
  if (r.error) return [r.kind, r.count, '—', '—', '—', '—', '—', '—', '—', '—', '—', `failed: ${r.error}`];
  const notes = [];
  if (r.duplicates) notes.push(`${r.duplicates} duplicates`);
  if (r.strays) notes.push(`${r.strays} strays`);
  if (r.ended) notes.push(`${r.ended} streams ended`);
  if (r.errors) notes.push(`${r.errors} errors (${r.firstError.slice(0, 80)})`);
  if (r.clockAnomalies) notes.push(`${r.clockAnomalies} clock anomalies`);
  return [
    r.kind,
    r.count,
    `${r.delivered} / ${r.lost}`,
    `${fmt(r.p50, 2)} / ${fmt(r.p99, 2)} / ${fmt(r.max, 2)}`,
    fmt(r.lastMedian, 2),
    `${fmt(r.serverCpuMs, 2)} (${fmt(r.serverCpuMinMs, 2)}–${fmt(r.serverCpuMaxMs, 2)})`,
    fmt(r.cpuUsPerStream, 2),
    fmt(r.maxDelayMs, 2),
    fmt(r.publishMs, 2),
    fmt(r.controlCpuMs, 2),
    fmt(r.clientCpuMs, 1),
    notes.join('; ') || '—',
  ];
}

module.exports = {
  id: 'fanout',
  title: 'One notification to many SSE streams',
  async run({ quick, log = () => {} }) {
    const t0 = performance.now();
    const counts = [1_000, TARGET_STREAMS];
    const rounds = quick ? 3 : 10;
    const keptSessions = quick ? 10_000 : FULL_SESSIONS;
    const broadcasts = quick ? 5 : 10;
    const json = { counts, rounds, keptSessions, broadcasts, roundTimeoutMs: ROUND_TIMEOUT_MS, streams: [] };
    for (const kind of ['raw', 'legacy', 'modern']) {
      for (const count of counts) {
        try {
          json.streams.push(await measureStreams(kind, count, rounds, log));
        } catch (error) {
          log(`fanout ${kind} ${count}: failed: ${error.message}${boundsHint(error)}`);
          json.streams.push({ kind, count, error: firstLine(error) + boundsHint(error) });
        }
      }
    }
    try {
      json.kept = await measureKept(keptSessions, broadcasts, log);
    } catch (error) {
      log(`fanout kept: failed: ${error.message}`);
      json.kept = { error: firstLine(error) };
    }
    json.seconds = Math.round((performance.now() - t0) / 1000);
    log(`fanout: measured in ${json.seconds} s`);

    const at = (kind) => json.streams.find((r) => r.kind === kind && r.count === TARGET_STREAMS && !r.error);
    const atMost = (name, value, threshold) => ({
      target: name,
      value: value ?? null,
      threshold,
      met: value != null && value <= threshold,
    });
    const heapTarget =
      `fanout: a broadcast to ${thousands(FULL_SESSIONS)} legacy sessions without a stream holds ≤ ` +
      `${HEAP_THRESHOLD_MB} MB of heap` +
      (quick ? ` (quick: ${thousands(keptSessions)} measured, scaled ×${FULL_SESSIONS / keptSessions})` : '');
    const targets = [];
    // The server time a broadcast takes from everything else: the longest the event loop was held (the server's CPU
    // for the whole broadcast, socket writes included, is in the table).
    for (const kind of ['legacy', 'modern']) {
      targets.push(
        atMost(
          `fanout: one notification to 5 000 ${kind} streams holds the event loop ≤ ${CPU_THRESHOLD_MS} ms at a time (largest loop delay, median of ${rounds} rounds)`,
          at(kind)?.maxDelayMs,
          CPU_THRESHOLD_MS,
        ),
      );
    }
    for (const kind of ['legacy', 'modern']) {
      targets.push(
        atMost(
          `fanout: p99 delivery at 5 000 ${kind} streams ≤ ${P99_THRESHOLD_MS} ms`,
          at(kind)?.p99,
          P99_THRESHOLD_MS,
        ),
      );
    }
    targets.push(atMost(heapTarget, json.kept.error ? null : json.kept.scaledMb, HEAP_THRESHOLD_MB));

    const k = json.kept;
    const markdown = [
      '## One notification to many SSE streams',
      '',
      `\`conduit.ts\` with \`BENCH_FANOUT=1\` (the tools of \`bench/servers/fanout.tools.ts\`), a fresh server per row, ` +
        `pinned to CPU 0 like every server; every stream is held by this one client process (CPU 1). Raw, the limit: ` +
        `\`bench/servers/raw-sse.js\`, plain \`node:http\` (no MCP) holding N \`GET /sse\` responses; its \`POST /fanout\` ` +
        `builds one \`notifications/resources/updated\` event and \`res.write\`s it to every response in one loop, its ` +
        `\`POST /loop_stats\` gives the same figures as the tool, rounds as below (no "nobody watching": every raw stream ` +
        `gets every event). Legacy: ` +
        `2025-11-25 sessions (initialize + notifications/initialized), each subscribed to \`bench://fanout/0..${rounds}\`` +
        ` (one \`resources/subscribe\` each) with its standalone \`GET\` stream open (all answered ` +
        `200 before the first round). Modern: 2026-07-28 \`subscriptions/listen\` streams watching the same URIs (all ` +
        `acknowledged). Two warm-up rounds (not counted), then ${rounds} rounds, ${ROUND_GAP_MS} ms apart: ` +
        `\`loop_stats\` reset, \`fanout\` publishes \`bench://fanout/<round>\` (\`McpServer.notifyResourceUpdated\`) ` +
        `and answers with the moment it did, the client waits until every stream got the update (or ` +
        `${ROUND_TIMEOUT_MS / 1000} s), then \`loop_stats\`: the server's CPU (user + system, \`process.cpuUsage\`) and ` +
        `largest event-loop delay (\`monitorEventLoopDelay\`, 1 ms resolution) from the reset to after the last ` +
        `arrival, the call itself and the keep-alive comments due meanwhile included. Delivery: publish → arrival of ` +
        `the chunk at the client, over every stream of every counted round (the machine's monotonic clock, which both ` +
        `processes read; a lost update counts as ${ROUND_TIMEOUT_MS / 1000} s). "Nobody watching" is the same call on ` +
        `a URI no stream watches (the call and the server's scan, no delivery). The streams are read from raw sockets ` +
        `(an HTTP/1.1 reader of the section's own, one shared read buffer). "Client CPU" is this process's per round: ` +
        `it should stay well under the last arrival, or the client is what the arrivals measure; it is also the floor ` +
        `below which no last arrival (nor a p99 near it) can be seen with every stream in one process on one core.`,
      '',
      table(
        [
          'kind',
          'streams',
          'delivered / lost',
          'delivery p50 / p99 / max ms',
          'last arrival ms (median)',
          'server CPU ms per round, median (min–max)',
          'server CPU µs per stream',
          'max loop delay ms (median)',
          'publish call ms',
          'nobody watching: server CPU ms',
          'client CPU ms per round',
          'notes',
        ],
        json.streams.map(streamRow),
      ),
      '',
      rawLine(json.streams),
      '',
      k.error
        ? `Sessions without a stream: failed: ${k.error}`
        : `Sessions without a stream: ${thousands(k.count)} legacy sessions (initialize + ` +
          `notifications/initialized, no \`GET\`) on a server run with \`--expose-gc\`; \`toggle\` (hides or shows ` +
          `\`fanout_dummy\`: \`notifications/tools/list_changed\` for every session) ${k.broadcasts} times, ` +
          `${TOGGLE_GAP_MS} ms apart; the heap after a full GC (\`loop_stats\`) before the first and after the last. ` +
          `"Idle" is the CPU of a ${TOGGLE_GAP_MS} ms interval without a toggle. Check that the notifications are kept: ` +
          `the last session's \`GET\` stream, opened afterwards, got ${k.kept} \`tools/list_changed\` (a server may ` +
          `keep identical broadcasts as one). 1 MB = 2^20 bytes.`,
      '',
      k.error
        ? ''
        : table(
            [
              'sessions',
              'broadcasts',
              'heap MB before → after',
              'MB per broadcast',
              `MB per broadcast to ${thousands(FULL_SESSIONS)}`,
              'bytes per session per broadcast',
              'MB: first broadcast / each later one',
              'server CPU ms per toggle (idle)',
              'max loop delay ms (median)',
            ],
            [
              [
                k.count,
                k.broadcasts,
                `${fmt(k.beforeMb, 2)} → ${fmt(k.afterMb, 2)}`,
                fmt(k.perBroadcastMb, 3),
                `${fmt(k.scaledMb, 3)}${quick ? ' (scaled)' : ''}`,
                fmt(k.bytesPerSession, 1),
                `${fmt(k.firstMb, 3)} / ${fmt(k.laterMb, 3)}`,
                `${fmt(k.toggleCpuMs, 2)} (${fmt(k.idleCpuMs, 2)})`,
                fmt(k.maxDelayMs, 2),
              ],
            ],
          ),
      '',
      `Measured in ${json.seconds} s.`,
      '',
      ...targets.map(targetLine),
      '',
    ].join('\n');
    return { markdown, json, targets };
  },
};
