'use strict';
// The official 2.x SDK (@modelcontextprotocol/server + @modelcontextprotocol/node), wired as its docs show:
//   BENCH_MODE=modern  createMcpHandler(factory) (per-request server; 2025 traffic falls back to stateless serving)
//                      mounted with toNodeHandler on node:http behind the localhost Host/Origin guards;
//   BENCH_MODE=legacy  sessionful NodeStreamableHTTPServerTransport, one McpServer + transport per session.
// BENCH_MRTR=1 adds `ask`: one form elicitation the 2026-07-28 way (inputRequired until the retry carries the answer).
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const {
  McpServer,
  createMcpHandler,
  isInitializeRequest,
  inputRequired,
  inputResponse,
} = require('@modelcontextprotocol/server');
const {
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  localhostHostValidation,
  localhostOriginValidation,
} = require('@modelcontextprotocol/node');
const { z } = require('zod');

function makeServer() {
  const server = new McpServer({ name: 'bench', version: '1' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({
      content: [{ type: 'text', text }],
    }),
  );
  if (process.env.BENCH_MRTR === '1') {
    server.registerTool(
      'ask',
      { description: 'Asks the client one question', inputSchema: z.object({ text: z.string() }) },
      async ({ text }, ctx) => {
        const answer = inputResponse(ctx.mcpReq.inputResponses, 'q');
        if (answer.kind === 'missing') {
          const requestedSchema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
          return inputRequired({ inputRequests: { q: inputRequired.elicit({ message: text, requestedSchema }) } });
        }
        const reply =
          answer.kind === 'elicit' && answer.action === 'accept'
            ? String(answer.content && answer.content.answer)
            : answer.kind;
        return { content: [{ type: 'text', text: reply }] };
      },
    );
  }
  return server;
}

const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
let handler;

if (process.env.BENCH_MODE === 'legacy') {
  const transports = new Map();
  const readBody = (req) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });
  handler = async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? JSON.parse((await readBody(req)) || 'null') : undefined;
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport && !sessionId && req.method === 'POST' && isInitializeRequest(body)) {
      transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await makeServer().connect(transport);
    }
    if (!transport) {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No valid session"}}');
      return;
    }
    await transport.handleRequest(req, res, body);
  };
} else {
  handler = toNodeHandler(createMcpHandler(() => makeServer()));
}

const server = http.createServer((req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  handler(req, res).catch((error) => {
    console.error(error);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
