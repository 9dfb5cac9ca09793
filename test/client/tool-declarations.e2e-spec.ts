import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { INestApplication } from '@nestjs/common';
import { McpClient } from '../../libs/client/src/connection/mcp-client';
import { McpInputResponder } from '../../libs/client/src/connection/input-responder.interface';
import { MCP_CLIENT_CHANNELS, McpClientRequestEvent } from '../../libs/client/src/telemetry/mcp-client.channels';
import { createClientTransport } from '../../libs/client/src/transports/client-transport.factory';
import { createHttpApp } from '../support/http-adapters';
import { roundsModule } from '../support/rounds-fixture';

const answersNothing: McpInputResponder = {
  capabilities: () => ({}),
  answer: () => Promise.reject(new Error('no questions expected')),
  notify: () => undefined,
};

// regional_weather declares `region` with x-mcp-header: Region, so a modern call over HTTP must carry
// Mcp-Param-Region, which the server checks (-32020 without it).
describe('McpClient.callTool before listTools: the tool’s Mcp-Param-* declarations are fetched (modern era, HTTP)', () => {
  let app: INestApplication;
  let url: string;
  const clients: McpClient[] = [];
  const requests: McpClientRequestEvent[] = [];
  const onRequest = (event: unknown) => {
    if ((event as McpClientRequestEvent).client === 'declarations') requests.push(event as McpClientRequestEvent);
  };
  const sent = (method: string) => requests.filter((event) => event.method === method).length;

  beforeAll(async () => {
    app = await createHttpApp(roundsModule({ path: '/mcp' }), 'express');
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
    subscribe(MCP_CLIENT_CHANNELS.request, onRequest);
  });

  afterAll(async () => {
    unsubscribe(MCP_CLIENT_CHANNELS.request, onRequest);
    await app?.close();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    requests.length = 0;
  });

  function client(era: 'modern' | 'legacy' = 'modern', maxListItems?: number): McpClient {
    const created = new McpClient(
      { id: 'rounds', transport: { type: 'http', url }, era },
      { name: 'declarations', servers: [], requestTimeoutMs: 10_000, ...(maxListItems ? { maxListItems } : {}) },
      answersNothing,
      createClientTransport,
    );
    clients.push(created);
    return created;
  }

  const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content[0]?.text;

  it('sends Mcp-Param-Region on the very first call, listing the tools once, then never again for it', async () => {
    const weather = client();
    expect(text(await weather.callTool('regional_weather', { city: 'Oslo', region: 'Østlandet' }))).toBe(
      'Sunny in Oslo (Østlandet).',
    );
    expect(text(await weather.callTool('regional_weather', { city: 'Bergen', region: 'Vestland' }))).toBe(
      'Sunny in Bergen (Vestland).',
    );
    expect(sent('tools/list')).toBe(1);
    expect(sent('tools/call')).toBe(2);
  });

  it('shares one listing among the calls waiting on it', async () => {
    const weather = client();
    const results = await Promise.all(
      ['Oslo', 'Bergen', 'Tromsø'].map((city) => weather.callTool('regional_weather', { city, region: 'Norge' })),
    );
    expect(results.map(text)).toEqual([
      'Sunny in Oslo (Norge).',
      'Sunny in Bergen (Norge).',
      'Sunny in Tromsø (Norge).',
    ]);
    expect(sent('tools/list')).toBe(1);
  });

  it('looks a tool the server does not list up once, then calls it as it is (the server answers for it)', async () => {
    const weather = client();
    await expect(weather.callTool('no_such_tool')).rejects.toMatchObject({ kind: 'rpc' });
    await expect(weather.callTool('no_such_tool')).rejects.toMatchObject({ kind: 'rpc' });
    expect(sent('tools/list')).toBe(1);
  });

  it('still sends the call when the listing fails (here: over maxListItems), and the server says what it misses', async () => {
    const weather = client('modern', 1);
    await expect(weather.callTool('regional_weather', { city: 'Oslo', region: 'Østlandet' })).rejects.toMatchObject({
      kind: 'rpc',
      code: -32020,
    });
    expect(sent('tools/list')).toBe(1);
  });

  it('adds nothing to a legacy call, nor to a tool already listed', async () => {
    const legacy = client('legacy');
    await legacy.callTool('regional_weather', { city: 'Oslo', region: 'Østlandet' });
    expect(sent('tools/list')).toBe(0);
    const modern = client();
    await modern.listTools();
    await modern.callTool('regional_weather', { city: 'Oslo', region: 'Østlandet' });
    expect(sent('tools/list')).toBe(1);
  });
});
