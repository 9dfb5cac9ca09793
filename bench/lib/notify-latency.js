'use strict';
// Notification latency for the scale-out section: a listen stream on one server watches bench://tick/<seq>; the
// `tick` tool (conduit.ts, BENCH_TICK=1) is called on a server, one call at a time, and answers with the moment it
// published; the stream gives the moment the update arrived. Both are readings of the machine's monotonic clock,
// which its processes share; the time from sending the call to the arrival is kept too, as a figure that needs no
// shared clock.
const http = require('node:http');
const { post, jsonRpcOf } = require('./http-post');
const { openListen, clockNs } = require('./listen-stream');
const { percentile, round, sleep } = require('./stats');

const MODERN = '2026-07-28';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 'tick',
};
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
// A server that loses this many updates is broken: stop rather than wait for every one of them.
const MAX_LOST = 10;
// Slack for the clock check: each reading is taken a little before or after the moment it stands for.
const CLOCK_SLACK_NS = 500_000n;

const uriOf = (seq) => `bench://tick/${seq}`;
const msBetween = (fromNs, toNs) => Number(toNs - fromNs) / 1e6;

/** Calls `tick` with `seq` on `url`; resolves the moment it published (clock ns, a bigint). */
async function tick(url, agent, seq) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: seq + 1,
    method: 'tools/call',
    params: { name: 'tick', arguments: { seq }, _meta: META },
  });
  const r = await post(url, HEADERS, body, agent, 5_000);
  const message = r.status === 200 ? jsonRpcOf(r.text) : undefined;
  const text = message && message.result && !message.result.isError && message.result.content?.[0]?.text;
  if (typeof text !== 'string' || !/^\d{1,30}$/.test(text))
    throw new Error(`tick ${seq} on ${url}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  return BigInt(text);
}

/**
 * Opens a listen stream on `listenUrl`, then calls `tick` on `triggerUrl` `warmup + count` times, `gapMs` apart, each
 * after the previous update arrived (or was lost after `waitMs`). The first `warmup` calls are not counted. Resolves
 * { count, lost, firstLoss, p50, p99, max, sendP50, sendP99, clockAnomalies } (ms, two decimals).
 */
async function measureNotifyLatency({ listenUrl, triggerUrl, count, warmup = 0, gapMs = 5, waitMs = 2_000 }) {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(warmup) || warmup < 0 || count + warmup > 1_000)
    throw new Error(`measureNotifyLatency: 1 to 1 000 ticks in all (got ${count} + ${warmup} warm-up)`);
  const total = warmup + count;
  const stream = await openListen(
    listenUrl,
    Array.from({ length: total }, (_, seq) => uriOf(seq)),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies = [];
  const sendToArrival = [];
  let lost = 0;
  let clockAnomalies = 0;
  let firstLoss;
  try {
    for (let seq = 0; seq < total; seq++) {
      const sentAt = clockNs();
      const publishedAt = await tick(triggerUrl, agent, seq);
      let arrivedAt;
      try {
        arrivedAt = await stream.waitFor(uriOf(seq), waitMs);
      } catch (error) {
        lost++;
        firstLoss = firstLoss || error.message;
        if (lost >= MAX_LOST) throw new Error(`${lost} updates lost (first: ${firstLoss})`);
        continue;
      }
      if (seq >= warmup) {
        // Publishing happens between sending the call and the update's arrival, or the clocks disagree.
        if (publishedAt < sentAt - CLOCK_SLACK_NS || publishedAt > arrivedAt + CLOCK_SLACK_NS) clockAnomalies++;
        latencies.push(msBetween(publishedAt, arrivedAt));
        sendToArrival.push(msBetween(sentAt, arrivedAt));
      }
      await sleep(gapMs);
    }
  } finally {
    stream.close();
    agent.destroy();
  }
  const at = (xs, p) => round(percentile(xs, p), 2);
  return {
    count: latencies.length,
    lost,
    firstLoss,
    p50: at(latencies, 50),
    p99: at(latencies, 99),
    max: at(latencies, 100),
    sendP50: at(sendToArrival, 50),
    sendP99: at(sendToArrival, 99),
    clockAnomalies,
  };
}

module.exports = { measureNotifyLatency };
