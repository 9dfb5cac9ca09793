import { Injectable, INestApplication, Module } from '@nestjs/common';
import { JsonRpcMessage } from '@conduit-mcp/core';
import { McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { invocationOf } from '../libs/server/src/context/mcp-request-context';
import { HTTP_ADAPTERS, createHttpApp } from './support/http-adapters';

const JSON_AND_SSE = 'application/json, text/event-stream';

/** A tool that logs, waits for the test, and logs again: it does not know where its messages go. */
@Injectable()
class GatedTool {
  static started: (ctx: McpRequestContext) => void = () => undefined;
  static gate: Promise<void> = Promise.resolve();

  @McpTool({ name: 'gated', description: 'Logs, waits, logs again' })
  async gated(@McpCtx() ctx: McpRequestContext) {
    ctx.log('info', 'before');
    GatedTool.started(ctx);
    await GatedTool.gate;
    ctx.log('info', 'after');
    return 'done';
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'repoint', version: '1' })], providers: [GatedTool] })
class RepointModule {}

/** Reads the JSON-RPC messages of an SSE body. */
function sseMessages(text: string): JsonRpcMessage[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as JsonRpcMessage);
}

describe.each(HTTP_ADAPTERS)('an McpInvocation outlives the exchange that started it (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await createHttpApp(RepointModule, adapter);
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/mcp`;
  });

  afterAll(() => app.close());

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('re-pointed while it runs, its messages go to the new sink and its result still answers the POST', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')! };
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();

    let open!: () => void;
    GatedTool.gate = new Promise((resolve) => (open = resolve));
    const started = new Promise<McpRequestContext>((resolve) => (GatedTool.started = resolve));
    const call = post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'gated', arguments: {} } },
      session,
    );

    // A store stands in for whatever takes the invocation over (a task's record, a resumed stream).
    const stored: JsonRpcMessage[] = [];
    const store = { closed: false, send: (message: JsonRpcMessage) => (stored.push(message), true) };
    const invocation = invocationOf(await started);
    expect(invocation.id).toBe(2);
    const postStream = invocation.sink;
    invocation.repoint(store);
    expect(invocation.sink).toBe(store);
    expect(invocation.sink).not.toBe(postStream);
    open();

    const response = await call;
    const messages = sseMessages(await response.text());
    const logs = (list: JsonRpcMessage[]) =>
      list
        .filter((m) => 'method' in m && m.method === 'notifications/message')
        .map((m) => (m as { params?: Record<string, unknown> }).params?.data);
    expect(logs(messages)).toEqual(['before']);
    expect(logs(stored)).toEqual(['after']);
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'done' }] } });
  });
});
