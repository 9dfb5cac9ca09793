import { rpcErrorMessage } from './rpc-error.message';

describe('rpcErrorMessage', () => {
  it('keeps the server’s message (sanitized) for an ordinary error', () => {
    expect(rpcErrorMessage(-32602, 'Unknown tool: x\u0007', undefined)).toBe('Unknown tool: x');
  });

  it('names the handler that declares each capability a -32021 refusal requires', () => {
    expect(rpcErrorMessage(-32021, 'Missing required client capability', { requiredCapabilities: { roots: {} } })).toBe(
      'Missing required client capability: this client must declare roots (a handler with @OnRoots()) for the server to go on',
    );
    expect(
      rpcErrorMessage(-32021, 'Needs input', { requiredCapabilities: { sampling: {}, elicitation: { url: {} } } }),
    ).toBe(
      "Needs input: this client must declare sampling (a handler with @OnSampling()), elicitation (url) (a handler with @OnElicitation({ modes: ['url'] })) for the server to go on",
    );
  });

  it('says nothing more when the refusal names no capability', () => {
    expect(rpcErrorMessage(-32021, 'Missing required client capability', { other: 1 })).toBe(
      'Missing required client capability',
    );
  });
});
