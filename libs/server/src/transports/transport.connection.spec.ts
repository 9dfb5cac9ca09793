import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RawClient } from '../../../../test/support/raw-client';
import { McpTool } from '../decorators/mcp-tool.decorator';
import { McpModule } from '../mcp.module';
import { McpServer } from '../mcp.server';

@Injectable()
class Echo {
  @McpTool({ name: 'echo', input: { type: 'object', properties: {} } })
  echo() {
    return 'echoed';
  }
}

async function connected(revision: string) {
  @Module({ imports: [McpModule.forRoot({ name: 'batches', version: '1', http: false })], providers: [Echo] })
  class BatchesModule {}
  const moduleRef = await Test.createTestingModule({ imports: [BatchesModule] }).compile();
  moduleRef.useLogger(false);
  const app = await moduleRef.init();
  const client = RawClient.connect(app.get(McpServer));
  const init = await client.request('initialize', {
    protocolVersion: revision,
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  });
  expect(init.result).toMatchObject({ protocolVersion: revision });
  await client.notify('notifications/initialized');
  return { client, close: async () => (await client.close(), await app.close()) };
}

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
/** The first message received after `count` earlier ones. */
const next = (client: RawClient, count: number) => client.waitFor(() => client.received.length > count);

describe('JSON-RPC batches over a message transport (stdio, in-memory)', () => {
  it('answers a batch with a batch on a 2025-03-26 session', async () => {
    const { client, close } = await connected('2025-03-26');
    try {
      const before = client.received.length;
      await client.send([call(10), call(11)]);
      await next(client, before);
      const answer = client.received[before] as unknown as Array<{ id: number }>;
      expect(Array.isArray(answer)).toBe(true);
      expect(answer.map((response) => response.id).sort()).toEqual([10, 11]);
    } finally {
      await close();
    }
  });

  it('refuses a batch on a session at 2025-06-18 or later with -32600, running none of its messages', async () => {
    const { client, close } = await connected('2025-11-25');
    try {
      const before = client.received.length;
      await client.send([call(20), call(21)]);
      await next(client, before);
      expect(client.received[before]).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message:
            'Invalid Request: JSON-RPC batches are not part of revision 2025-11-25 (removed in 2025-06-18); send one message per request',
        },
      });
      // The session still serves single messages, and the batch's calls never ran.
      expect((await client.request('tools/call', { name: 'echo', arguments: {} }, 22)).result).toBeDefined();
      expect(client.received.filter((m) => m.id === 20 || m.id === 21)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('refuses a batch longer than 32 messages, an empty one, and one holding initialize, whatever the revision', async () => {
    const { client, close } = await connected('2025-03-26');
    try {
      const refusals: unknown[] = [];
      for (const batch of [
        Array.from({ length: 33 }, (_, n) => call(100 + n)),
        [],
        [{ jsonrpc: '2.0', id: 200, method: 'initialize', params: {} }],
      ]) {
        const before = client.received.length;
        await client.send(batch);
        await next(client, before);
        refusals.push(client.received[before]);
      }
      expect(refusals).toEqual([
        { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: a batch may hold at most 32 messages' } },
        { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: empty batch' } },
        {
          jsonrpc: '2.0',
          error: { code: -32600, message: 'Invalid Request: initialize must not be part of a batch' },
        },
      ]);
    } finally {
      await close();
    }
  });
});
