import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RawClient } from '../../../../../test/support/raw-client';
import { McpArgs, McpCtx } from '../../decorators/mcp-params.decorator';
import { McpTool } from '../../decorators/mcp-tool.decorator';
import { McpRequestContext } from '../../context/mcp-request-context';
import { McpModule } from '../../mcp.module';
import { McpServer } from '../../mcp.server';

@Injectable()
class Asker {
  /** Asks `count` questions at once, each with a message of `size` characters; answers with the first to settle. */
  @McpTool({
    name: 'ask_many',
    input: {
      type: 'object',
      properties: { count: { type: 'number' }, size: { type: 'number' } },
      required: ['count', 'size'],
    },
  })
  async askMany(@McpArgs() args: { count: number; size: number }, @McpCtx() ctx: McpRequestContext) {
    const asks = Array.from({ length: args.count }, (_, n) =>
      ctx.input.elicit(`q${n}`, {
        message: 'm'.repeat(args.size),
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      }),
    );
    const first = await Promise.race(asks);
    return `answered: ${first.action}`;
  }
}

@Injectable()
class OneQuestion {
  @McpTool({ name: 'ask_one', input: { type: 'object', properties: {} } })
  async askOne(@McpArgs() _args: object, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('q', {
      message: 'ok?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    return JSON.stringify(answer);
  }

  @McpTool({ name: 'sample_one', input: { type: 'object', properties: {} } })
  async sampleOne(@McpArgs() _args: object, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.sample('s', {
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 5,
    });
    return JSON.stringify(answer);
  }
}

async function serve(options: { maxPendingInputPerSession?: number; maxPendingInputBytesPerSession?: number }) {
  @Module({
    imports: [McpModule.forRoot({ name: 'asker', version: '1', http: false, ...options })],
    providers: [Asker, OneQuestion],
  })
  class AskerModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AskerModule] }).compile();
  moduleRef.useLogger(false);
  const app = await moduleRef.init();
  return { app, server: app.get(McpServer) };
}

const questions = (client: RawClient) => client.received.filter((m) => m.method === 'elicitation/create');

describe('questions to the client waiting for an answer (legacy era)', () => {
  it('are capped per session: past maxPendingInputPerSession, ctx.input.* rejects at once with -32000', async () => {
    const { app, server } = await serve({ maxPendingInputPerSession: 3 });
    const client = RawClient.connect(server);
    try {
      await client.initialize({ elicitation: {} });
      // A client that never answers: three questions wait, the fourth is refused rather than queued.
      const refused = await client.request('tools/call', { name: 'ask_many', arguments: { count: 4, size: 10 } });
      expect(refused.error).toEqual({
        code: -32000,
        message: 'Too many requests to the client waiting for its answer in this session (at most 3)',
      });
      expect(questions(client)).toHaveLength(3);

      // An answer makes room again.
      await client.send({ jsonrpc: '2.0', id: questions(client)[0].id, result: { action: 'decline' } });
      const call = client.request('tools/call', { name: 'ask_many', arguments: { count: 1, size: 10 } });
      const fourth = await client.waitFor(
        (m) => m.method === 'elicitation/create' && !questions(client).slice(0, 3).includes(m),
      );
      await client.send({ jsonrpc: '2.0', id: fourth.id, result: { action: 'accept', content: { ok: true } } });
      expect((await call).result).toMatchObject({ content: [{ type: 'text', text: 'answered: accept' }] });
    } finally {
      await client.close();
      await app.close();
    }
  });

  it('are bounded in bytes per session: a question that would pass maxPendingInputBytesPerSession is refused', async () => {
    const { app, server } = await serve({ maxPendingInputBytesPerSession: 10_000 });
    const client = RawClient.connect(server);
    try {
      await client.initialize({ elicitation: {} });
      const refused = await client.request('tools/call', { name: 'ask_many', arguments: { count: 3, size: 4_000 } });
      expect(refused.error).toEqual({
        code: -32000,
        message: 'The requests to the client waiting for its answer in this session would pass 10000 bytes',
      });
      expect(questions(client)).toHaveLength(2);
      // Another session has a budget of its own.
      const other = RawClient.connect(server);
      await other.initialize({ elicitation: {} });
      const call = other.request('tools/call', { name: 'ask_many', arguments: { count: 1, size: 4_000 } });
      const question = await other.waitFor((m) => m.method === 'elicitation/create');
      await other.send({ jsonrpc: '2.0', id: question.id, result: { action: 'decline' } });
      expect((await call).result).toMatchObject({ content: [{ type: 'text', text: 'answered: decline' }] });
      await other.close();
    } finally {
      await client.close();
      await app.close();
    }
  });

  describe("checks the client's answer before the handler sees it", () => {
    async function answering(tool: string, method: string, answer: Record<string, unknown>) {
      const { app, server } = await serve({});
      const client = RawClient.connect(server);
      try {
        await client.initialize({ elicitation: {}, sampling: {} });
        const call = client.request('tools/call', { name: tool, arguments: {} });
        const question = await client.waitFor((m) => m.method === method);
        await client.send({ jsonrpc: '2.0', id: question.id, result: answer });
        return await call;
      } finally {
        await client.close();
        await app.close();
      }
    }

    it('refuses a form answer with a field the requested schema does not declare (-32602)', async () => {
      const reply = await answering('ask_one', 'elicitation/create', { action: 'accept', content: { admin: true } });
      expect(reply.error).toEqual({
        code: -32602,
        message:
          'Invalid answer from the client to elicitation/create: elicitation content has undeclared field "admin"',
      });
    });

    it('refuses an unknown action and a sampling answer without a model (-32602)', async () => {
      const action = await answering('ask_one', 'elicitation/create', { action: 'approve' });
      expect(action.error).toMatchObject({ code: -32602, message: expect.stringContaining('action must be accept') });
      const sampled = await answering('sample_one', 'sampling/createMessage', {
        role: 'assistant',
        content: { type: 'text', text: 'x' },
      });
      expect(sampled.error).toMatchObject({ code: -32602, message: expect.stringContaining('model must be a string') });
    });

    it('passes a valid answer, dropping content sent with a decline', async () => {
      const accepted = await answering('ask_one', 'elicitation/create', { action: 'accept', content: { ok: true } });
      expect(accepted.result).toMatchObject({ content: [{ text: '{"action":"accept","content":{"ok":true}}' }] });
      const declined = await answering('ask_one', 'elicitation/create', { action: 'decline', content: { ok: true } });
      expect(declined.result).toMatchObject({ content: [{ text: '{"action":"decline"}' }] });
    });
  });
});
