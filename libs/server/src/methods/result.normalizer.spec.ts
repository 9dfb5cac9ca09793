import { toCallToolResult, toCompleteResult, toGetPromptResult, toReadResourceResult } from './result.normalizer';

describe('result normalizers', () => {
  it('turns tool return values into CallToolResults', () => {
    expect(toCallToolResult('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(toCallToolResult({ a: 1 })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
    const full = { content: [{ type: 'text', text: 'x' }], isError: true };
    expect(toCallToolResult(full)).toBe(full);
    expect(toCallToolResult(undefined)).toEqual({ content: [] });
    expect(toCallToolResult([1, 2])).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
  });

  it('turns resource return values into contents carrying the requested URI and declared mime type', () => {
    expect(toReadResourceResult('body', 'a://b', 'text/plain')).toEqual({
      contents: [{ uri: 'a://b', mimeType: 'text/plain', text: 'body' }],
    });
    expect(toReadResourceResult(Buffer.from([1, 2, 3]), 'a://b', undefined)).toEqual({
      contents: [{ uri: 'a://b', blob: 'AQID' }],
    });
    expect(toReadResourceResult([{ text: 'x' }, { uri: 'a://c', text: 'y' }], 'a://b', undefined)).toEqual({
      contents: [
        { uri: 'a://b', text: 'x' },
        { uri: 'a://c', text: 'y' },
      ],
    });
  });

  it('turns prompt return values into messages', () => {
    expect(toGetPromptResult('do it', 'desc')).toEqual({
      description: 'desc',
      messages: [{ role: 'user', content: { type: 'text', text: 'do it' } }],
    });
    const messages = [{ role: 'assistant', content: { type: 'text', text: 'ok' } }];
    expect(toGetPromptResult(messages, undefined)).toEqual({ messages });
  });

  it('clamps completions to 100 values and says there are more', () => {
    const many = Array.from({ length: 150 }, (_, i) => `v${i}`);
    expect(toCompleteResult(many)).toEqual({ completion: { values: many.slice(0, 100), total: 150, hasMore: true } });
    expect(toCompleteResult({ values: ['a', 7, 'b'], hasMore: false })).toEqual({
      completion: { values: ['a', 'b'], hasMore: false },
    });
    expect(toCompleteResult('nonsense')).toEqual({ completion: { values: [] } });
  });
});
