import { JsonRpcMessage, JsonRpcResponse } from '@conduit-mcp/core';
import { ClientTransport } from '../transports/client-transport.interface';
import { CallTable } from './call-table';
import { ConnectionHost } from './connection.host';
import { EraNegotiator } from './era.negotiator';
import { ModernEnvelope } from './modern-envelope';

type Request = { id: number; method: string; params: Record<string, unknown> };
type Answer = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

const discovered = {
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  instructions: 'Be brief',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-peer', version: '2.0.0' } },
};
const initialized = {
  protocolVersion: '2025-06-18',
  capabilities: { logging: {} },
  serverInfo: { name: 'legacy-peer', version: '1.0.0' },
};
const methodNotFound = { error: { code: -32601, message: 'Method not found' } };
const unsupported = (supported: string[]) => ({
  error: { code: -32022, message: 'Unsupported protocol version', data: { supported } },
});

/** A server played by `answers` (one per request, in order), over a transport that records what it is told. */
function negotiator(configured: string | undefined, answers: Answer[]) {
  const requests: Request[] = [];
  const notifications: string[] = [];
  const revisions: Array<string | undefined> = [];
  let standaloneStreams = 0;
  const transport: ClientTransport = {
    start: async () => undefined,
    close: async () => undefined,
    origin: 'http://127.0.0.1:1',
    useRevision: (revision) => void revisions.push(revision),
    openStandaloneStream: async () => void standaloneStreams++,
    send: async (message: JsonRpcMessage) => {
      if (!('id' in message) && 'method' in message) return void notifications.push(message.method);
      const request = message as unknown as Request;
      requests.push(request);
      const answer = answers.shift();
      if (answer)
        setImmediate(() => calls.onResponse({ jsonrpc: '2.0', id: request.id, ...answer } as JsonRpcResponse, false));
    },
  };
  const host: ConnectionHost = {
    transport: () => transport,
    write: (message) => transport.send(message),
    era: () => subject.era,
    revision: () => subject.protocolVersion,
    capabilities: () => ({ roots: {} }),
    clientInfo: () => ({ name: 'spec', version: '1.0.0' }),
    logLevel: () => undefined,
    eventScope: (method) => ({ client: 'spec', server: 'peer', method, era: subject.era ?? 'legacy' }),
  };
  const calls = new CallTable(host, new ModernEnvelope(host), { requestTimeoutMs: 1_000 });
  const subject = new EraNegotiator('peer', configured, host, calls);
  return { subject, requests, notifications, revisions, standaloneStreams: () => standaloneStreams };
}

describe('EraNegotiator', () => {
  it('auto: stays modern on a modern server/discover answer and keeps what it says', async () => {
    const { subject, requests, revisions } = negotiator(undefined, [{ result: discovered }]);
    await subject.negotiate();
    expect(requests.map((request) => request.method)).toEqual(['server/discover']);
    expect(requests[0].params._meta).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
    expect(subject).toMatchObject({
      era: 'modern',
      protocolVersion: '2026-07-28',
      serverCapabilities: { tools: {} },
      serverInfo: { name: 'modern-peer', version: '2.0.0' },
      instructions: 'Be brief',
    });
    expect(revisions).toEqual(['2026-07-28']);
  });

  it('auto: falls back to initialize on a legacy server, then opens the standalone stream', async () => {
    const { subject, requests, notifications, revisions, standaloneStreams } = negotiator('auto', [
      methodNotFound,
      { result: initialized },
    ]);
    await subject.negotiate();
    expect(requests.map((request) => request.method)).toEqual(['server/discover', 'initialize']);
    expect(requests[1].params).toEqual({
      protocolVersion: '2025-11-25',
      capabilities: { roots: {} },
      clientInfo: { name: 'spec', version: '1.0.0' },
    });
    expect(notifications).toEqual(['notifications/initialized']);
    expect(subject).toMatchObject({
      era: 'legacy',
      protocolVersion: '2025-06-18',
      serverCapabilities: { logging: {} },
      serverInfo: { name: 'legacy-peer', version: '1.0.0' },
      instructions: undefined,
    });
    expect(revisions).toEqual(['2026-07-28', undefined, '2025-06-18']);
    expect(standaloneStreams()).toBe(1);
  });

  it('auto: a -32022 naming a modern revision of ours keeps the connection modern', async () => {
    const { subject, requests } = negotiator(undefined, [unsupported(['2026-07-28']), { result: discovered }]);
    await subject.negotiate();
    expect(requests.map((request) => request.method)).toEqual(['server/discover', 'server/discover']);
    expect(subject.era).toBe('modern');
  });

  it('auto: a -32022 naming only legacy revisions falls back to initialize', async () => {
    const { subject, requests } = negotiator(undefined, [unsupported(['2025-06-18']), { result: initialized }]);
    await subject.negotiate();
    expect(requests.map((request) => request.method)).toEqual(['server/discover', 'initialize']);
    expect(subject.era).toBe('legacy');
  });

  it('modern: a -32022 naming a modern revision of ours is retried once, then the error stands', async () => {
    const retried = negotiator('modern', [unsupported(['2026-07-28']), { result: discovered }]);
    await retried.subject.negotiate();
    expect(retried.requests).toHaveLength(2);
    expect(retried.subject.era).toBe('modern');

    const refused = negotiator('modern', [unsupported(['2026-07-28']), unsupported(['2026-07-28'])]);
    await expect(refused.subject.negotiate()).rejects.toMatchObject({ kind: 'rpc', code: -32022 });
    expect(refused.requests).toHaveLength(2);
  });

  it('legacy or a pinned revision: initializes at once, and refuses a revision it does not speak', async () => {
    const pinned = negotiator('2025-03-26', [{ result: { ...initialized, protocolVersion: '2025-03-26' } }]);
    await pinned.subject.negotiate();
    expect(pinned.requests.map((request) => [request.method, request.params.protocolVersion])).toEqual([
      ['initialize', '2025-03-26'],
    ]);

    const odd = negotiator('legacy', [{ result: { ...initialized, protocolVersion: '1999-01-01' } }]);
    await expect(odd.subject.negotiate()).rejects.toMatchObject({ kind: 'protocol' });
    await expect(negotiator('someday', []).subject.negotiate()).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('reinitializes at the revision negotiated before', async () => {
    const { subject, requests } = negotiator('legacy', [{ result: initialized }, { result: initialized }]);
    await subject.negotiate();
    await subject.reinitialize();
    expect(requests.map((request) => request.params.protocolVersion)).toEqual(['2025-11-25', '2025-06-18']);
  });

  it("refuses a method of the other era, naming the negotiated era's way", async () => {
    const { subject } = negotiator('legacy', [{ result: initialized }]);
    await subject.negotiate();
    expect(() => subject.requireEra('legacy', 'resources/subscribe', 'listen()')).not.toThrow();
    expect(() => subject.requireEra('modern', 'subscriptions/listen', 'subscribe() in the legacy era')).toThrow(
      /subscriptions\/listen is part of the modern era only.*legacy era \(2025-06-18\); use subscribe\(\) in the legacy era/,
    );
  });
});
