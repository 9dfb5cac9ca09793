import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { McpInputRefusal } from '../connection/input-responder.interface';
import { reportInput } from './client-telemetry';
import { MCP_CLIENT_CHANNELS, McpClientInputEvent } from './mcp-client.channels';

describe('reportInput: the outcome of a question, on conduit-mcp:client:input', () => {
  const scope = { client: 'c', server: 's', method: 'sampling/createMessage', era: 'legacy' as const };
  const events: McpClientInputEvent[] = [];
  const listener = (event: unknown) => events.push(event as McpClientInputEvent);
  beforeEach(() => {
    events.length = 0;
    subscribe(MCP_CLIENT_CHANNELS.input, listener);
  });
  afterEach(() => unsubscribe(MCP_CLIENT_CHANNELS.input, listener));

  it.each([
    ['refused', new McpInputRefusal(-1, 'over budget'), undefined, { status: 'refused', errorCode: -1 }],
    ['error', Object.assign(new Error('crashed'), { code: -32603 }), undefined, { status: 'error', errorCode: -32603 }],
    ['cancelled', new Error('stopped'), AbortSignal.abort(), { status: 'cancelled' }],
  ])('%s', async (_name, thrown, signal, expected) => {
    await expect(reportInput(scope, signal, () => Promise.reject(thrown))).rejects.toBe(thrown);
    expect(events).toEqual([{ ...scope, ...expected, durationMs: expect.any(Number) }]);
  });

  it('ok, with the answer passed through; nothing published once nobody listens', async () => {
    await expect(reportInput(scope, undefined, async () => ({ answer: 1 }))).resolves.toEqual({ answer: 1 });
    expect(events).toEqual([{ ...scope, status: 'ok', durationMs: expect.any(Number) }]);
    unsubscribe(MCP_CLIENT_CHANNELS.input, listener);
    await reportInput(scope, undefined, async () => ({}));
    expect(events).toHaveLength(1);
  });
});
