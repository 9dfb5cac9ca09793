'use strict';
// The limit of the fanout section: node:http holding N SSE responses and writing one event to each. No MCP at all.
// GET /sse opens a stream (200 text/event-stream, headers flushed, nothing more until a fan-out). POST /fanout
// {"seq":n} builds ONE event for bench://fanout/<n> and writes it to every open response in one synchronous loop,
// then answers {"publishedAt": "<ns>"} (the machine's monotonic clock, which the driver reads alike). POST /loop_stats
// {"reset":bool} answers the figures fanout.tools.ts's `loop_stats` gives (same field names) since its last reset.
const http = require('node:http');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const streams = new Set();
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let cpuMark = process.cpuUsage();
let eluMark = performance.eventLoopUtilization();

function fanout(seq) {
  const publishedAt = process.hrtime.bigint();
  const message = {
    jsonrpc: '2.0',
    method: 'notifications/resources/updated',
    params: { uri: `bench://fanout/${seq}` },
  };
  const chunk = `data: ${JSON.stringify(message)}\n\n`;
  for (const res of streams) res.write(chunk);
  const publishMs = Number(process.hrtime.bigint() - publishedAt) / 1e6;
  return { publishedAt: String(publishedAt), publishMs };
}

function loopStats(reset) {
  const cpu = process.cpuUsage(cpuMark);
  const elu = performance.eventLoopUtilization(eluMark);
  const stats = {
    maxDelayMs: delay.count > 0 ? delay.max / 1e6 : 0,
    cpuUs: cpu.user + cpu.system,
    cpuUserUs: cpu.user,
    cpuSystemUs: cpu.system,
    elu: elu.utilization,
    activeMs: elu.active,
  };
  if (reset) {
    delay.reset();
    cpuMark = process.cpuUsage();
    eluMark = performance.eventLoopUtilization();
  }
  return stats;
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    streams.add(res);
    res.on('close', () => streams.delete(res));
    return;
  }
  if (req.method !== 'POST' || (req.url !== '/fanout' && req.url !== '/loop_stats')) {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let args;
    try {
      args = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const answer = req.url === '/fanout' ? fanout(args.seq) : loopStats(args.reset === true);
    const body = JSON.stringify(answer);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`));
// The open streams never end by themselves: close them, or server.close would wait for them.
process.on('SIGTERM', () => {
  for (const res of streams) res.destroy();
  server.close(() => process.exit(0));
});
