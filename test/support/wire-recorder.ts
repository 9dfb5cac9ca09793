import { WireSchema } from './wire-schema';

interface MessageTransport {
  send(message: unknown, options?: unknown): Promise<void>;
  onmessage?: (message: unknown, extra?: unknown) => void;
}

/** One message the server sent, and what the schema of the negotiated revision says about it. */
export interface RecordedMessage {
  message: Record<string, unknown>;
  problems: string[];
}

/**
 * Taps a client transport (any official SDK transport) before the client connects: remembers the method of each
 * request the client sends, and validates every message the server sends against the schema of the revision the
 * server negotiated in `initialize`.
 */
export class WireRecorder {
  readonly received: RecordedMessage[] = [];
  private readonly methods = new Map<string | number, string>();
  revision = '2025-11-25';

  tap<T extends object>(target: T): T {
    const transport = target as unknown as MessageTransport;
    const send = transport.send.bind(transport);
    transport.send = (message: unknown, options?: unknown) => {
      const m = message as Record<string, unknown>;
      if (typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number'))
        this.methods.set(m.id, m.method);
      return send(message, options);
    };
    let inner: MessageTransport['onmessage'];
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      get: () =>
        inner
          ? (message: unknown, extra?: unknown) => {
              this.record(message as Record<string, unknown>);
              inner!(message, extra);
            }
          : undefined,
      set: (handler: MessageTransport['onmessage']) => {
        inner = handler;
      },
    });
    return target;
  }

  /** Every problem found so far, one line each; an empty list means every message was valid. */
  problems(): string[] {
    return this.received.flatMap(({ message, problems }) =>
      problems.map((problem) => `${JSON.stringify(message).slice(0, 300)}: ${problem}`),
    );
  }

  /** Notifications received with this method. */
  notifications(method: string): Record<string, unknown>[] {
    return this.received.map((r) => r.message).filter((m) => m.method === method && !('id' in m));
  }

  private record(message: Record<string, unknown>): void {
    const requestMethod =
      'id' in message && !('method' in message) ? this.methods.get(message.id as string | number) : undefined;
    if (requestMethod === 'initialize' && 'result' in message) {
      this.revision = String((message.result as Record<string, unknown>).protocolVersion);
    }
    this.received.push({ message, problems: WireSchema.for(this.revision).check(message, requestMethod) });
  }
}
