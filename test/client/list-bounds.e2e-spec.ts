import { McpClient } from '../../libs/client/src/connection/mcp-client';
import { McpInputResponder } from '../../libs/client/src/connection/input-responder.interface';
import { McpClientModuleOptions } from '../../libs/client/src/interfaces/mcp-client-options.interface';
import { createClientTransport } from '../../libs/client/src/transports/client-transport.factory';
import { LIST_KEYS, ScriptedServer, endlessPages, startScriptedServer } from '../support/scripted-mcp.server';

const answersNothing: McpInputResponder = {
  capabilities: () => ({}),
  answer: () => Promise.reject(new Error('no questions expected')),
  notify: () => undefined,
};

type ListMethod = keyof typeof LIST_KEYS;
const LIST_CALLS: Array<[ListMethod, (client: McpClient) => Promise<unknown[]>]> = [
  ['tools/list', (client) => client.listTools()],
  ['resources/list', (client) => client.listResources()],
  ['resources/templates/list', (client) => client.listResourceTemplates()],
  ['prompts/list', (client) => client.listPrompts()],
];

describe('McpClient lists against a real HTTP server that paginates forever', () => {
  const servers: ScriptedServer[] = [];
  const clients: McpClient[] = [];

  async function connect(
    shape: Parameters<typeof endlessPages>[0],
    options: Partial<McpClientModuleOptions> = {},
    era = 'legacy',
  ): Promise<{ client: McpClient; server: ScriptedServer }> {
    const server = await startScriptedServer({ answer: endlessPages(shape) });
    servers.push(server);
    const client = new McpClient(
      { id: 'endless', transport: { type: 'http', url: server.url }, era },
      { name: 'list-bounds', servers: [], ...options },
      answersNothing,
      createClientTransport,
    );
    clients.push(client);
    await client.connect();
    return { client, server };
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it.each(['legacy', 'modern'])(
    'stops tools/list after 100 pages by default (%s era), failing with kind protocol naming maxListPages',
    async (era) => {
      const { client, server } = await connect({}, {}, era);
      await expect(client.listTools()).rejects.toMatchObject({
        name: 'McpClientError',
        kind: 'protocol',
        message:
          "tools/list: the server's list goes past 100 pages (the client's maxListPages); ask for it page by page ({ cursor, all: false })",
      });
      expect(server.received('tools/list')).toHaveLength(100);
    },
  );

  it.each(LIST_CALLS)('bounds %s by maxListPages', async (method, list) => {
    const { client, server } = await connect({}, { maxListPages: 5 });
    await expect(list(client)).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringContaining(`${method}: the server's list goes past 5 pages (the client's maxListPages)`),
    });
    expect(server.received(method)).toHaveLength(5);
    // Page by page still works past the limit: the caller decides how far to go.
    expect(await client.request(method, { cursor: '7' })).toMatchObject({ nextCursor: '8' });
  });

  it('bounds the items of a listing by maxListItems (40 a page, limit 100: the third page is refused)', async () => {
    const { client, server } = await connect({ perPage: 40 }, { maxListItems: 100 });
    await expect(client.listPrompts()).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringContaining("past 100 items (the client's maxListItems)"),
    });
    expect(server.received('prompts/list')).toHaveLength(3);
  });

  it('bounds the bytes of a listing by maxListBytes (10 kB items, limit 50 kB)', async () => {
    const { client, server } = await connect({ itemBytes: 10_000 }, { maxListBytes: 50_000 });
    await expect(client.listResources()).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringContaining("past 50000 bytes (the client's maxListBytes)"),
    });
    expect(server.received('resources/list')).toHaveLength(5);
  });

  it('counts the call’s timeout across all its pages, not per page', async () => {
    // 50 ms a page, never ending, and no page limit to stop it: only the 400 ms deadline of the whole call can.
    const { client, server } = await connect({ delayMs: 50 }, { maxListPages: 1_000_000 });
    const started = Date.now();
    await expect(client.listTools({}, { timeout: 400 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const pages = server.received('tools/list').length;
    expect(pages).toBeGreaterThan(1);
    // 400 ms at 50 ms or more a page: never more than 8 pages (a slow machine makes fewer).
    expect(pages).toBeLessThanOrEqual(9);
  });

  it('counts maxTotalTimeout across all its pages too', async () => {
    const { client, server } = await connect({ delayMs: 50 }, { maxListPages: 1_000_000 });
    await expect(client.listResourceTemplates({}, { maxTotalTimeout: 300 })).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(server.received('resources/templates/list').length).toBeLessThanOrEqual(7);
  });
});
