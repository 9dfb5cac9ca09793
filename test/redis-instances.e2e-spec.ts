import { Injectable, INestApplication, Module } from '@nestjs/common';
import {
  McpCtx,
  McpHealthIndicator,
  McpModule,
  McpRequestContext,
  McpResource,
  McpServer,
  McpTool,
} from '@conduit-mcp/server';
import { McpRedis, McpRedisModule } from '@conduit-mcp/redis';
import { deleteKeys, testPrefix, testRedis } from '../libs/redis/src/redis-test.fixtures-spec';
import { createHttpApp } from './support/http-adapters';
import {
  legacyHeaders,
  legacyPost,
  openGetStream,
  openLegacySession,
  sleep,
  streamToolCall,
  until,
} from './support/legacy-http.client';
import { connectModernHttp } from './support/modern-client';

// Two instances of one server, each its own Nest app with its own Redis connections, sharing a real Redis under one
// key prefix: what a second process behind a load balancer sees, in one test process. The client picks the instance
// of each request itself (as a rotating client would).

@Injectable()
class SharedTools {
  static cancelledWith: string | undefined;

  constructor(readonly server: McpServer) {}

  @McpTool({ name: 'ask', description: 'Asks the client for a word' })
  async ask(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('word', {
      message: 'A word?',
      requestedSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    });
    return `got ${String(answer.content?.word)}`;
  }

  @McpTool({ name: 'wait', description: 'Waits until cancelled' })
  async wait(@McpCtx() ctx: McpRequestContext) {
    await ctx.log('info', 'waiting');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    SharedTools.cancelledWith = String((ctx.signal.reason as Error).message);
    return 'cancelled';
  }

  @McpTool({ name: 'count', description: 'Sends three progress messages, then answers' })
  async count(@McpCtx() ctx: McpRequestContext) {
    for (let n = 1; n <= 3; n++) await ctx.log('info', `step ${n}`);
    return 'counted';
  }

  @McpTool({ name: 'who', description: 'Says which session it runs in' })
  who(@McpCtx() ctx: McpRequestContext) {
    return { session: ctx.sessionId ?? null };
  }

  @McpResource({ uri: 'notes://index', name: 'index', description: 'The notes' })
  index() {
    return 'the notes';
  }
}

interface Instance {
  app: INestApplication;
  url: string;
  server: McpServer;
}

async function instance(keyPrefix: string, redisUrl?: string): Promise<Instance> {
  @Module({
    imports: [
      McpRedisModule.forRoot({ keyPrefix, ...(redisUrl ? { url: redisUrl } : {}), commandTimeoutMs: 1_000 }),
      McpModule.forRootAsync({
        inject: [McpRedis],
        useFactory: (redis: McpRedis) => ({ name: 'shared', version: '1', ...redis.state('shared') }),
      }),
    ],
    providers: [SharedTools, McpHealthIndicator],
  })
  class InstanceModule {}
  const app = await createHttpApp(InstanceModule, 'express');
  await app.listen(0, '127.0.0.1');
  return { app, url: `${await app.getUrl()}/mcp`, server: app.get(SharedTools).server };
}

describe('two instances on one Redis (@conduit-mcp/redis)', () => {
  const prefix = testPrefix('instances');
  const redis = testRedis();
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    [a, b] = await Promise.all([instance(prefix), instance(prefix)]);
  });

  afterAll(async () => {
    await Promise.all([a?.app.close(), b?.app.close()]);
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('a session opened on A is served by B', async () => {
    const sessionId = await openLegacySession(a.url);
    const served = await legacyPost(
      b.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'who' } },
      sessionId,
    );
    expect(served.status).toBe(200);
    expect(served.json.result.structuredContent).toEqual({ session: sessionId });
  });

  it('DELETE on B ends the session on A: its GET stream ends and A answers 404', async () => {
    const sessionId = await openLegacySession(a.url);
    const get = await openGetStream(a.url, sessionId);
    expect(get.status).toBe(200);
    const stream = get.stream!;
    const deleted = await fetch(b.url, { method: 'DELETE', headers: legacyHeaders(sessionId) });
    expect(deleted.status).toBe(204);
    await expect(Promise.race([stream.done.then(() => 'ended'), sleep(5_000).then(() => 'open')])).resolves.toBe(
      'ended',
    );
    const after = await legacyPost(
      a.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'who' } },
      sessionId,
    );
    expect(after.status).toBe(404);
  });

  it('once DELETE on A is answered, B refuses the session at once, though it held a live copy', async () => {
    for (let round = 0; round < 20; round++) {
      const sessionId = await openLegacySession(a.url);
      const onB = await legacyPost(
        b.url,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'who' } },
        sessionId,
      );
      expect(onB.status).toBe(200); // B now holds a live copy
      const deleted = await fetch(a.url, { method: 'DELETE', headers: legacyHeaders(sessionId) });
      expect(deleted.status).toBe(204);
      const after = await legacyPost(
        b.url,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'who' } },
        sessionId,
      );
      expect({ round, status: after.status }).toEqual({ round, status: 404 });
    }
  });

  it('an elicitation answer posted to B reaches the tool waiting on A', async () => {
    const sessionId = await openLegacySession(a.url, { elicitation: { form: {} } });
    const call = await streamToolCall(a.url, sessionId, 3, 'ask');
    const question = await until('the elicitation request', () =>
      call.events.find((event) => event.message.method === 'elicitation/create'),
    );
    const answered = await legacyPost(
      b.url,
      { jsonrpc: '2.0', id: question.message.id, result: { action: 'accept', content: { word: 'redis' } } },
      sessionId,
    );
    expect(answered.status).toBe(202);
    await call.done;
    const result = call.events.find((event) => event.message.id === 3);
    expect(result?.message.result.content[0].text).toBe('got redis');
  });

  it('a notifications/cancelled posted to B aborts the handler running on A', async () => {
    SharedTools.cancelledWith = undefined;
    const sessionId = await openLegacySession(a.url);
    const call = await streamToolCall(a.url, sessionId, 4, 'wait');
    await until('the handler runs', () =>
      call.events.find((event) => event.message.method === 'notifications/message'),
    );
    const cancelled = await legacyPost(
      b.url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: 'changed my mind' } },
      sessionId,
    );
    expect(cancelled.status).toBe(202);
    await until('the handler saw the abort', () => SharedTools.cancelledWith);
    expect(SharedTools.cancelledWith).toContain('changed my mind');
    await call.cancel();
  });

  it('a stream recorded on A is resumed on B with Last-Event-ID, no event lost', async () => {
    const sessionId = await openLegacySession(a.url);
    const call = await streamToolCall(a.url, sessionId, 5, 'count');
    await call.done;
    const logged = call.events.filter((event) => event.message.method === 'notifications/message');
    expect(logged.map((event) => event.message.params.data)).toEqual(['step 1', 'step 2', 'step 3']);
    // The client lost the stream after the first message: it resumes from there on B.
    const resumed = await openGetStream(b.url, sessionId, logged[0].id);
    expect(resumed.status).toBe(200);
    const replay = resumed.stream!;
    await replay.done;
    expect(replay.events.map((event) => event.id)).toEqual(
      call.events.slice(call.events.indexOf(logged[0]) + 1).map((event) => event.id),
    );
    expect(replay.events.at(-1)?.message).toMatchObject({ id: 5, result: { content: [{ text: 'counted' }] } });
  });

  it('a subscriptions/listen stream on A sees a list change and a resource update made on B', async () => {
    const peer = await connectModernHttp(a.url);
    try {
      const listen = await peer.client.listen({ toolsListChanged: true, resourceSubscriptions: ['notes://index'] });
      try {
        b.server.setToolEnabled('who', false);
        await b.server.notifyResourceUpdated('notes://index');
        await until('the list change', () => peer.recorder.notifications('notifications/tools/list_changed')[0]);
        const updated = await until(
          'the resource update',
          () => peer.recorder.notifications('notifications/resources/updated')[0],
        );
        expect(updated.params).toMatchObject({ uri: 'notes://index' });
      } finally {
        listen.close();
        b.server.setToolEnabled('who', true);
      }
    } finally {
      await peer.close();
    }
  });

  it('health reports the Redis stores and bus', async () => {
    const health = await a.app.get(McpHealthIndicator).isHealthy('mcp');
    expect(health.mcp.status).toBe('up');
    expect(JSON.stringify(health)).toContain('"up":true');
    expect(await a.app.get(McpRedis).health()).toMatchObject({ up: true, status: 'ready' });
  });
});
