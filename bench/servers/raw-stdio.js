'use strict';
// The stdio limit: newline-delimited JSON-RPC on stdin/stdout, parse each line and write an echo result.
// Just enough MCP for a client to connect: a valid InitializeResult, notifications ignored. Exits when stdin ends.
const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'raw-stdio', version: '1' },
};

function answer(msg) {
  if (msg.id === undefined || msg.id === null) return; // a notification
  const p = msg.params || {};
  let result;
  if (msg.method === 'tools/call') result = { content: [{ type: 'text', text: p.arguments && p.arguments.text }] };
  else if (msg.method === 'initialize') result = INIT_RESULT;
  else result = {};
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\n');
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) !== -1) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (!line.trim()) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      continue;
    }
    answer(msg);
  }
});
process.stdin.on('end', () => process.exit(0));
