import {
  DEFAULT_SAMPLING_OPTIONS,
  SamplingOptions,
  SamplingSituation,
  checkSamplingRequest,
  checkSamplingResult,
} from './sampling.check';

const busy: SamplingSituation = { era: 'legacy', callsInFlight: 1 };
const user = { role: 'user', content: { type: 'text', text: 'hello' } };
const toolTurn = (shape: 'block' | 'array') => ({
  role: 'assistant',
  content:
    shape === 'block'
      ? { type: 'tool_use', id: 't', name: 'search', input: {} }
      : [
          { type: 'text', text: 'let me look' },
          { type: 'tool_use', id: 't', name: 'search', input: {} },
        ],
});
const toolResult = { role: 'user', content: [{ type: 'tool_result', toolUseId: 't', content: [] }] };
const withToolTurns = (n: number, shape: 'block' | 'array' = 'array') => [
  user,
  ...Array.from({ length: n }, () => [toolTurn(shape), toolResult]).flat(),
];

const check = (params: unknown, options: Partial<SamplingOptions> = {}, situation = busy) =>
  checkSamplingRequest(params, { ...DEFAULT_SAMPLING_OPTIONS, ...options }, situation);

describe('checkSamplingRequest', () => {
  it('has the reference defaults', () => {
    expect(DEFAULT_SAMPLING_OPTIONS).toEqual({
      maxTokens: 4096,
      context: false,
      allowIdle: false,
      maxToolIterations: 5,
      rejectionCode: -1,
    });
  });

  it('passes a well-formed request through as a copy', () => {
    const params = { messages: [user], maxTokens: 100, temperature: 0.2, systemPrompt: 'be brief' };
    const result = check(params);
    expect(result).toEqual({ ok: true, value: params });
    expect(result.ok && result.value).not.toBe(params);
  });

  it.each([
    ['not an object', 'hi', 'sampling params must be an object'],
    ['null', null, 'sampling params must be an object'],
    ['an array', [], 'sampling params must be an object'],
    ['no messages', { maxTokens: 10 }, 'messages must be an array'],
    ['messages not an array', { messages: {}, maxTokens: 10 }, 'messages must be an array'],
    ['a message without role', { messages: [{ content: {} }], maxTokens: 10 }, 'messages[0] must have a role'],
    ['a message with a bad role', { messages: [user, { role: 'system', content: {} }], maxTokens: 10 }, 'messages[1]'],
    ['a message without content', { messages: [{ role: 'user' }], maxTokens: 10 }, 'messages[0]'],
    ['no maxTokens', { messages: [user] }, 'maxTokens must be a positive integer'],
    ['maxTokens 0', { messages: [user], maxTokens: 0 }, 'maxTokens must be a positive integer'],
    ['maxTokens negative', { messages: [user], maxTokens: -5 }, 'maxTokens must be a positive integer'],
    ['maxTokens fractional', { messages: [user], maxTokens: 1.5 }, 'maxTokens must be a positive integer'],
    ['maxTokens a string', { messages: [user], maxTokens: '10' }, 'maxTokens must be a positive integer'],
    ['maxTokens infinite', { messages: [user], maxTokens: Infinity }, 'maxTokens must be a positive integer'],
    ['unknown includeContext', { messages: [user], maxTokens: 10, includeContext: 'everything' }, 'includeContext'],
  ])('refuses %s with -32602', (_, params, message) => {
    const result = check(params);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe(-32602);
      expect(result.error.message).toContain(message);
    }
  });

  it('clamps maxTokens to the option, at the 4096 boundary', () => {
    const tokens = (n: number) => {
      const result = check({ messages: [user], maxTokens: n });
      return result.ok ? result.value.maxTokens : undefined;
    };
    expect(tokens(1)).toBe(1);
    expect(tokens(4095)).toBe(4095);
    expect(tokens(4096)).toBe(4096);
    expect(tokens(4097)).toBe(4096);
    expect(tokens(1_000_000)).toBe(4096);
    const small = check({ messages: [user], maxTokens: 500 }, { maxTokens: 200 });
    expect(small.ok && small.value.maxTokens).toBe(200);
  });

  it('coerces includeContext to none unless context is allowed', () => {
    for (const includeContext of ['thisServer', 'allServers', 'none']) {
      const denied = check({ messages: [user], maxTokens: 10, includeContext });
      expect(denied.ok && denied.value.includeContext).toBe('none');
      const allowed = check({ messages: [user], maxTokens: 10, includeContext }, { context: true });
      expect(allowed.ok && allowed.value.includeContext).toBe(includeContext);
    }
    const absent = check({ messages: [user], maxTokens: 10 });
    expect(absent.ok && 'includeContext' in absent.value).toBe(false);
  });

  it('refuses a legacy request with no call in flight, with the rejection code', () => {
    const params = { messages: [user], maxTokens: 10 };
    expect(check(params, {}, { era: 'legacy', callsInFlight: 0 })).toEqual({
      ok: false,
      error: { code: -1, message: 'sampling refused: no call in flight' },
    });
    const custom = check(params, { rejectionCode: -32001 }, { era: 'legacy', callsInFlight: 0 });
    expect(!custom.ok && custom.error.code).toBe(-32001);
    expect(check(params, { allowIdle: true }, { era: 'legacy', callsInFlight: 0 }).ok).toBe(true);
    expect(check(params, {}, { era: 'modern', callsInFlight: 0 }).ok).toBe(true);
    expect(check(params, {}, { era: 'legacy', callsInFlight: 2 }).ok).toBe(true);
  });

  it('allows 5 assistant tool_use turns and refuses 6, with the rejection code', () => {
    for (const shape of ['block', 'array'] as const) {
      expect(check({ messages: withToolTurns(5, shape), maxTokens: 10 }).ok).toBe(true);
      expect(check({ messages: withToolTurns(6, shape), maxTokens: 10 })).toEqual({
        ok: false,
        error: { code: -1, message: 'sampling refused: 6 assistant tool_use turns exceed the limit of 5' },
      });
    }
    const custom = check({ messages: withToolTurns(3), maxTokens: 10 }, { maxToolIterations: 2, rejectionCode: -7 });
    expect(!custom.ok && custom.error.code).toBe(-7);
  });

  it('counts only assistant turns holding tool_use', () => {
    const userToolUse = { role: 'user', content: { type: 'tool_use', id: 'x', name: 'n', input: {} } };
    const assistantText = { role: 'assistant', content: { type: 'text', text: 'tool_use' } };
    const messages = [...Array(10).fill(userToolUse), ...Array(10).fill(assistantText)];
    expect(check({ messages, maxTokens: 10 }).ok).toBe(true);
  });
});

describe('checkSamplingResult', () => {
  const good = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm', stopReason: 'endTurn' };

  it('accepts a CreateMessageResult, content a block or an array of blocks', () => {
    expect(checkSamplingResult(good)).toEqual({ ok: true, value: good });
    expect(checkSamplingResult({ ...good, content: [{ type: 'text', text: 'a' }] }).ok).toBe(true);
  });

  it.each([
    ['not an object', 'text'],
    ['null', null],
    ['no role', { content: {}, model: 'm' }],
    ['a bad role', { ...good, role: 'system' }],
    ['no content', { role: 'assistant', model: 'm' }],
    ['string content', { ...good, content: 'hi' }],
    ['no model', { role: 'assistant', content: {} }],
    ['a numeric model', { ...good, model: 1 }],
  ])('refuses %s with -32603', (_, result) => {
    const checked = checkSamplingResult(result);
    expect(!checked.ok && checked.error.code).toBe(-32603);
  });
});
