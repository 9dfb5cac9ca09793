'use strict';
// A minimal 2026-07-28 client for the MRTR section: a tools/call, and the full round trip of the `ask` tool
// (input_required with one elicitation → retry with the accepted answer and the requestState → complete).
const { post, jsonRpcOf } = require('./http-post');

const MODERN = '2026-07-28';
// The client declares form elicitation, or a server must refuse the question (-32021).
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};
let nextId = 1;

const headersFor = (name) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': name,
});

async function call(url, agent, name, params) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: { name, ...params, _meta: META },
  });
  const r = await post(url, headersFor(name), body, agent);
  const msg = r.status === 200 ? jsonRpcOf(r.text) : undefined;
  if (!msg || !msg.result) throw new Error(`${name}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  return msg.result;
}

const textOf = (result) => result.content && result.content[0] && result.content[0].text;

/** One plain echo tools/call, checked. */
async function echo(url, agent) {
  const result = await call(url, agent, 'echo', { arguments: { text: 'hello bench' } });
  if (textOf(result) !== 'hello bench') throw new Error(`echo: ${JSON.stringify(result).slice(0, 200)}`);
}

/** One MRTR round trip of `ask`, checked: two HTTP requests. */
async function askRoundTrip(url, agent, answer = 'yes') {
  const args = { arguments: { text: 'Proceed?' } };
  const first = await call(url, agent, 'ask', args);
  if (first.resultType !== 'input_required' || !first.inputRequests || !first.inputRequests.q)
    throw new Error(`ask round 1: ${JSON.stringify(first).slice(0, 200)}`);
  const retry = { ...args, inputResponses: { q: { action: 'accept', content: { answer } } } };
  if (first.requestState !== undefined) retry.requestState = first.requestState;
  const second = await call(url, agent, 'ask', retry);
  if (second.resultType !== 'complete' || textOf(second) !== answer)
    throw new Error(`ask round 2: ${JSON.stringify(second).slice(0, 200)}`);
}

module.exports = { echo, askRoundTrip };
