'use strict';
// What the load sends: headers and a body per request (a fresh JSON-RPC id each), for either era.
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const ACCEPT = 'application/json, text/event-stream';
const TEXT = 'hello bench';

function baseHeaders() {
  return { 'content-type': 'application/json', accept: ACCEPT };
}

/**
 * { headers, body(id) } for `method` ('tools/call' echo or 'tools/list') in `era`; legacy needs `sessionId`.
 * `text` (optional) is the echo argument, for payload-size scenarios; default 'hello bench'.
 */
function requestShape(era, method, sessionId, text = TEXT) {
  const params = method === 'tools/call' ? { name: 'echo', arguments: { text } } : {};
  const headers = baseHeaders();
  if (era === 'modern') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    headers['mcp-protocol-version'] = MODERN;
    headers['mcp-method'] = method;
    if (method === 'tools/call') headers['mcp-name'] = 'echo';
  } else {
    headers['mcp-protocol-version'] = LEGACY;
    if (sessionId) headers['mcp-session-id'] = sessionId;
  }
  const tail = `,"method":"${method}","params":${JSON.stringify(params)}}`;
  return { headers, body: (id) => `{"jsonrpc":"2.0","id":${id}${tail}` };
}

async function post(url, headers, body) {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Opens a legacy session (initialize + notifications/initialized); returns its id (or null when sessionless). */
async function openLegacySession(url) {
  const init = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  };
  const r = await post(url, baseHeaders(), JSON.stringify(init));
  if (r.status !== 200) throw new Error(`initialize: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  const sessionId = r.headers.get('mcp-session-id');
  const headers = { ...baseHeaders(), 'mcp-protocol-version': LEGACY };
  if (sessionId) headers['mcp-session-id'] = sessionId;
  const n = await post(url, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  if (n.status >= 300) throw new Error(`notifications/initialized: HTTP ${n.status} ${n.text.slice(0, 300)}`);
  return sessionId;
}

/** One request checked for a correct answer before loading the server. */
async function probe(url, shape, method) {
  const r = await post(url, shape.headers, shape.body(1));
  const ok =
    r.status === 200 &&
    (method === 'tools/call'
      ? r.text.includes(`"text":"${TEXT}"`) && !r.text.includes('"isError":true')
      : r.text.includes('"tools"'));
  if (!ok) throw new Error(`probe ${method}: HTTP ${r.status} ${r.text.slice(0, 400)}`);
  return r;
}

module.exports = { requestShape, openLegacySession, probe };
