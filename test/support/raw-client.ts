import { Transport, createInMemoryTransportPair } from '@conduit-mcp/core';
import { McpServer } from '@conduit-mcp/server';

/** A bare JSON-RPC peer on an in-memory transport, for unit tests: sends raw messages, collects what comes back. */
export class RawClient {
  readonly received: Array<Record<string, unknown>> = [];
  private readonly waiters: Array<() => void> = [];
  private nextId = 1;

  private constructor(private readonly transport: Transport) {
    transport.onmessage = (message) => {
      this.received.push(message as Record<string, unknown>);
      this.waiters.splice(0).forEach((wake) => wake());
    };
  }

  static connect(server: McpServer): RawClient {
    const [client, served] = createInMemoryTransportPair();
    server.connect(served);
    return new RawClient(client);
  }

  /** Sends `initialize` + `notifications/initialized` with the given client capabilities. */
  async initialize(capabilities: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const response = await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities,
      clientInfo: { name: 'raw', version: '1' },
    });
    await this.notify('notifications/initialized');
    return response;
  }

  async request(
    method: string,
    params?: Record<string, unknown>,
    id: string | number = this.nextId++,
  ): Promise<Record<string, unknown>> {
    await this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.waitFor((m) => m.id === id && !('method' in m));
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  send(message: unknown): Promise<void> {
    return this.transport.send(message as never);
  }

  /** Resolves with the first received message (past or future) that matches; rejects after 5 s. */
  async waitFor(
    match: (message: Record<string, unknown>) => boolean,
    timeoutMs = 5_000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no matching message arrived');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
