import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import {
  InMemoryEventBus,
  InMemoryEventStore,
  InMemorySessionStore,
  InMemoryTaskStore,
  McpBusEvent,
  McpEventBus,
  McpModule,
  McpResource,
  McpServer,
  McpTool,
  SessionStore,
  TaskStore,
} from '@conduit-mcp/server';
import { RawClient } from './support/raw-client';
import { LiveSessions } from '../libs/server/src/session/live-sessions';

@Injectable()
class Tools {
  @McpTool({ name: 'hello' })
  hello() {
    return 'hello';
  }

  @McpResource({ uri: 'memo://1', name: 'memo' })
  memo() {
    return 'memo';
  }
}

/** A "client" an app already has (a Redis connection, say), from which a factory builds the stores. */
@Injectable()
class StateClient {
  readonly sessions = new InMemorySessionStore();
  readonly bus = new InMemoryEventBus();
  readonly tasks = new InMemoryTaskStore();
}

@Module({ providers: [StateClient], exports: [StateClient] })
class StateClientModule {}

async function start(imports: unknown[]) {
  const moduleRef = await Test.createTestingModule({ imports: imports as never[], providers: [Tools] }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('state seams: stores and bus chosen through McpModule', () => {
  it('uses the defaults it builds when none is given: bounded in-memory stores and bus', async () => {
    const moduleRef = await start([McpModule.forRoot({ name: 's', version: '1', http: false })]);
    try {
      expect(moduleRef.get(SessionStore)).toBeInstanceOf(InMemorySessionStore);
      expect(moduleRef.get(McpEventBus)).toBeInstanceOf(InMemoryEventBus);
      expect(moduleRef.get(TaskStore)).toBeInstanceOf(InMemoryTaskStore);
    } finally {
      await moduleRef.close();
    }
  });

  it('takes the stores and bus a forRootAsync factory builds from an injected client, and writes sessions through', async () => {
    const moduleRef = await start([
      McpModule.forRootAsync({
        name: 's',
        imports: [StateClientModule],
        inject: [StateClient],
        useFactory: (client: StateClient) => ({
          name: 's',
          version: '1',
          http: false,
          sessionStore: client.sessions,
          eventBus: client.bus,
          taskStore: client.tasks,
        }),
      }),
    ]);
    const client = moduleRef.get(StateClient);
    try {
      expect(moduleRef.get(SessionStore)).toBe(client.sessions);
      expect(moduleRef.get(McpEventBus)).toBe(client.bus);
      expect(moduleRef.get(TaskStore)).toBe(client.tasks);

      const server = moduleRef.get(McpServer);
      const peer = RawClient.connect(server);
      await peer.initialize({ roots: {} });
      await peer.request('logging/setLevel', { level: 'warning' });
      await peer.request('resources/subscribe', { uri: 'memo://1' });
      const [live] = [...moduleRef.get(LiveSessions).values()];
      await new Promise((resolve) => setImmediate(resolve)); // the store is written in the background
      expect(await client.sessions.get(live.id)).toMatchObject({
        id: live.id,
        revision: '2025-11-25',
        clientInfo: { name: 'raw', version: '1' },
        clientCapabilities: { roots: {} },
        logLevel: 'warning',
        subscriptions: ['memo://1'],
        initialized: true,
      });
    } finally {
      await moduleRef.close();
    }
  });

  it('broadcasts through the bus: list changes are published, and events from another instance reach sessions', async () => {
    const bus = new InMemoryEventBus();
    const published: McpBusEvent[] = [];
    bus.subscribe((event) => published.push(event));
    const moduleRef = await start([McpModule.forRoot({ name: 's', version: '1', http: false, eventBus: bus })]);
    try {
      const server = moduleRef.get(McpServer);
      const peer = RawClient.connect(server);
      await peer.initialize();
      await peer.request('resources/subscribe', { uri: 'memo://1' });

      server.setToolEnabled('hello', false);
      expect(published).toContainEqual({ type: 'list-changed', server: 's', list: 'tools' });
      await peer.waitFor((m) => m.method === 'notifications/tools/list_changed');

      // As another instance of the same server would: the event arrives on the bus, not from this McpServer.
      await bus.publish({ type: 'resource-updated', server: 's', uri: 'memo://1' });
      await peer.waitFor((m) => m.method === 'notifications/resources/updated');
      // Another server's events are not this server's business.
      await bus.publish({ type: 'list-changed', server: 'other', list: 'prompts' });
      await peer.request('ping');
      expect(peer.received.filter((m) => m.method === 'notifications/prompts/list_changed')).toEqual([]);
    } finally {
      await moduleRef.close();
    }
  });

  it('serves the modern era without touching a store', async () => {
    const sessions = new InMemorySessionStore();
    const events = new InMemoryEventStore();
    const calls: string[] = [];
    for (const [name, store] of [
      ['session', sessions],
      ['event', events],
    ] as const) {
      for (const method of Object.getOwnPropertyNames(Object.getPrototypeOf(store))) {
        if (method === 'constructor') continue;
        const original = (store as unknown as Record<string, (...args: unknown[]) => unknown>)[method];
        if (typeof original !== 'function') continue;
        (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          calls.push(`${name}.${method}`);
          return original.apply(store, args);
        };
      }
    }
    @Module({
      imports: [McpModule.forRoot({ name: 's', version: '1', sessionStore: sessions, eventStore: events })],
      providers: [Tools],
    })
    class ModernOnly {}
    const app = await NestFactory.create(ModernOnly, { logger: false });
    await app.listen(0, '127.0.0.1');
    try {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      for (const [id, method, params] of [
        [1, 'tools/list', {}],
        [2, 'tools/call', { name: 'hello', arguments: {} }],
        [3, 'resources/read', { uri: 'memo://1' }],
      ] as const) {
        const response = await fetch(`${await app.getUrl()}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': method,
            ...(method === 'tools/call'
              ? { 'mcp-name': 'hello' }
              : method === 'resources/read'
                ? { 'mcp-name': 'memo://1' }
                : {}),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
        });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { result?: unknown }).result).toBeDefined();
      }
      expect(calls).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
