'use strict';
// The limit: node:http that parses the JSON-RPC body and writes an echo result. No MCP semantics at all, beyond what a
// real client needs to connect (legacy era, no session): a valid InitializeResult, 202 to notifications, 405 to GET
// (no SSE stream) and DELETE (no session). The tools/call path is unchanged.
const http = require('node:http');

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'raw-http', version: '1' },
};

const server = http.createServer((req, res) => {
  if (req.method === 'GET' || req.method === 'DELETE') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (msg.method === 'initialize' || msg.id === undefined) {
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const init = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: INIT_RESULT });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(init) });
      res.end(init);
      return;
    }
    const p = msg.params || {};
    const result =
      msg.method === 'tools/call' ? { content: [{ type: 'text', text: p.arguments && p.arguments.text }] } : {};
    const body = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
