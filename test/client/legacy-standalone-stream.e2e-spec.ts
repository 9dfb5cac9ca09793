// A legacy Streamable HTTP connection is ready once its standalone GET stream is open: a server may send a request
// on it as soon as a call starts (the official SDK's servers drop one that has no stream to go to), so the first call
// must not race the GET. A server slow to answer the GET delays connecting by a bounded wait only.
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { McpClient } from '../../libs/client/src/connection/mcp-client';
import { createClientTransport } from '../../libs/client/src/transports/client-transport.factory';
import type { McpInputResponder } from '../../libs/client/src/connection/input-responder.interface';

/** Declares nothing and is asked nothing here. */
const responder: McpInputResponder = {
  capabilities: () => ({}),
  answer: () => Promise.reject(new Error('not asked here')),
  notify: () => undefined,
};

/** A legacy server: initialize answered as JSON with a session, notifications 202, the GET answered by `get`. */
async function legacyServer(
  get: (res: ServerResponse) => void,
): Promise<{ url: string; log: string[]; server: Server }> {
  const log: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'GET') {
        log.push('GET');
        return get(res);
      }
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      log.push(message.method);
      if (message.id === undefined) return void res.writeHead(202).end();
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } }
          : {};
      res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'the-session' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, log, server };
}

function clientOf(url: string): McpClient {
  return new McpClient(
    { id: 'raw', transport: { type: 'http', url }, era: 'legacy' },
    { name: 'unit-client', servers: [], requestTimeoutMs: 10_000 },
    responder,
    createClientTransport,
  );
}

describe('a legacy HTTP connection and its standalone stream', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('is ready once the standalone GET stream is open, so the first call cannot race it', async () => {
    // The GET's answer comes late; connect() resolves only after it, and the first call follows.
    const { url, log, server } = await legacyServer((res) =>
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n'), 300),
    );
    servers.push(server);
    const client = clientOf(url);
    const started = Date.now();
    await client.connect();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await client.ping();
    expect(log).toEqual(['initialize', 'notifications/initialized', 'GET', 'ping']);
    await client.close();
  });

  it('does not wait for a GET the server never answers beyond its bound', async () => {
    const { url, log, server } = await legacyServer(() => undefined);
    servers.push(server);
    const client = clientOf(url);
    const started = Date.now();
    await client.connect();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(2_900);
    expect(waited).toBeLessThan(6_000);
    await client.ping();
    expect(log).toEqual(['initialize', 'notifications/initialized', 'GET', 'ping']);
    await client.close();
  });
});
