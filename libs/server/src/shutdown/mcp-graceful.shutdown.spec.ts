import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RawClient } from '../../../../test/support/raw-client';
import { McpArgs, McpCtx, McpModule, McpRequestContext, McpServer, McpTool } from '../index';

const aborted: string[] = [];

@Injectable()
class SlowTools {
  @McpTool({
    name: 'wait',
    input: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  })
  async wait(@McpArgs() args: { ms: number }, @McpCtx() ctx: McpRequestContext) {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, args.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        aborted.push((ctx.signal.reason as Error).message);
        reject(ctx.signal.reason);
      });
    });
    return `Waited ${args.ms} ms.`;
  }
}

async function serve(shutdownGraceMs: number) {
  @Module({
    imports: [McpModule.forRoot({ name: 'shutdown', version: '1.0.0', http: false, shutdownGraceMs })],
    providers: [SlowTools],
  })
  class ShutdownModule {}
  const app = await (await Test.createTestingModule({ imports: [ShutdownModule] }).compile()).init();
  const client = RawClient.connect(app.get(McpServer));
  await client.initialize();
  return { app, client };
}

describe('McpGracefulShutdown', () => {
  beforeEach(() => aborted.splice(0));

  it('lets a request in flight finish within the grace period, and answers it', async () => {
    const { app, client } = await serve(10_000);
    const answer = client.request('tools/call', { name: 'wait', arguments: { ms: 300 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await answer).toMatchObject({ result: { content: [{ type: 'text', text: 'Waited 300 ms.' }] } });
    expect(aborted).toEqual([]);
  });

  it('refuses new requests while it drains, with -32000', async () => {
    const { app, client } = await serve(10_000);
    const answer = client.request('tools/call', { name: 'wait', arguments: { ms: 300 } }, 'first');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await client.request('ping', undefined, 'late')).toEqual({
      jsonrpc: '2.0',
      id: 'late',
      error: { code: -32000, message: 'Server is shutting down' },
    });
    await closing;
    expect(await answer).toMatchObject({ id: 'first', result: { content: [{ text: 'Waited 300 ms.' }] } });
  });

  it('cancels what still runs once the grace period is over', async () => {
    const { app, client } = await serve(200);
    await client.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'wait', arguments: { ms: 60_000 } },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(aborted).toEqual(['Server shutting down']);
  });

  it('closes at once when nothing is in flight', async () => {
    const { app } = await serve(60_000);
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
