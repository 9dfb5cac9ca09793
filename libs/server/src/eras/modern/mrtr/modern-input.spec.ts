import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ElicitResult } from '@conduit-mcp/core';
import { RawClient } from '../../../../../../test/support/raw-client';
import { McpCtx, McpModule, McpRequestContext, McpServer, McpTool } from '../../../index';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, sampling: {}, roots: {} },
};

const CONFIRM = {
  message: 'Delete it?',
  requestedSchema: {
    type: 'object' as const,
    properties: { confirm: { type: 'boolean' as const }, reason: { type: 'string' as const } },
    required: ['confirm'],
  },
};

/** What the handlers were handed, in order. */
const seen: ElicitResult[] = [];

@Injectable()
class Questions {
  @McpTool({ name: 'delete' })
  async delete(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('confirm', CONFIRM);
    seen.push(answer);
    return answer.action === 'accept' && answer.content?.confirm === true ? 'Deleted.' : 'Kept.';
  }

  /** Catches whatever asking throws, as a careless handler might. */
  @McpTool({ name: 'careless' })
  async careless(@McpCtx() ctx: McpRequestContext) {
    try {
      seen.push(await ctx.input.elicit('confirm', CONFIRM));
      return 'Asked.';
    } catch {
      return 'Carried on regardless.';
    }
  }

  @McpTool({ name: 'summarize' })
  async summarize(@McpCtx() ctx: McpRequestContext) {
    const result = await ctx.input.sample('draft', {
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }],
      maxTokens: 10,
    });
    return `model ${result.model}`;
  }
}

describe('modern-era answers to input requests (MRTR retries)', () => {
  let close: () => Promise<unknown>;
  let client: RawClient;

  beforeAll(async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'answers', version: '1.0.0', http: false, eras: ['modern'] })],
      providers: [Questions],
    })
    class AnswersModule {}
    const app = await (await Test.createTestingModule({ imports: [AnswersModule] }).compile()).init();
    client = RawClient.connect(app.get(McpServer));
    close = async () => (await client.close(), await app.close());
  });

  afterAll(() => close());

  beforeEach(() => {
    seen.length = 0;
  });

  /** The first round (asking), then the retry with `answer` to the key `key` and the request state echoed. */
  async function retry(name: string, key: string, answer: unknown) {
    const first = (await client.request('tools/call', { _meta: meta, name, arguments: {} })).result as {
      resultType: string;
      requestState?: string;
    };
    expect(first.resultType).toBe('input_required');
    return client.request('tools/call', {
      _meta: meta,
      name,
      arguments: {},
      inputResponses: { [key]: answer },
      ...(first.requestState === undefined ? {} : { requestState: first.requestState }),
    });
  }

  it.each([
    ['an unknown action', { action: 'maybe' }, /action must be accept, decline or cancel/],
    ['an answer that is not an object', 'yes', /must be an object/],
    [
      'a field the schema does not declare',
      { action: 'accept', content: { confirm: true, extra: 'x' } },
      /undeclared field "extra"/,
    ],
    [
      'a value that is not a form value',
      { action: 'accept', content: { confirm: true, reason: { deep: 1 } } },
      /"reason" must be a string, number, boolean or string array/,
    ],
    [
      'a value of the wrong type',
      { action: 'accept', content: { confirm: 'yes' } },
      /does not fit the schema: \/confirm must be boolean/,
    ],
    ['a missing required field', { action: 'accept', content: {} }, /must have required property 'confirm'/],
    ['content that is not an object', { action: 'accept', content: [true] }, /content must be an object/],
  ])('refuses %s with -32602, and the handler never gets it', async (_name, answer, problem) => {
    const response = await retry('delete', 'confirm', answer);
    expect(response.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid input response "confirm": /),
    });
    expect((response.error as { message: string }).message).toMatch(problem);
    expect(seen).toEqual([]);
  });

  it('refuses an invalid answer with -32602 even when the handler catches the error and carries on', async () => {
    const response = await retry('careless', 'confirm', { action: 'accept', content: { confirm: true, extra: 'x' } });
    expect(response.error).toMatchObject({ code: -32602, message: expect.stringMatching(/undeclared field "extra"/) });
    expect(response.result).toBeUndefined();
  });

  it('hands the handler a valid answer, content dropped from a decline', async () => {
    expect((await retry('delete', 'confirm', { action: 'accept', content: { confirm: true } })).result).toMatchObject({
      content: [{ type: 'text', text: 'Deleted.' }],
    });
    expect((await retry('delete', 'confirm', { action: 'decline', content: { confirm: true } })).result).toMatchObject({
      content: [{ type: 'text', text: 'Kept.' }],
    });
    expect(seen).toEqual([{ action: 'accept', content: { confirm: true } }, { action: 'decline' }]);
  });

  it('checks sampling answers as the client library does: content may be an array of blocks', async () => {
    const draft = { role: 'assistant', model: 'm1', content: [{ type: 'text', text: 'Short.' }] };
    expect((await retry('summarize', 'draft', draft)).result).toMatchObject({ content: [{ text: 'model m1' }] });
    expect((await retry('summarize', 'draft', { ...draft, model: 7 })).error).toMatchObject({
      code: -32602,
      message: 'Invalid input response "draft": sampling result model must be a string',
    });
  });
});
