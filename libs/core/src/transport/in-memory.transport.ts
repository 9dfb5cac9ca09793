import { JsonRpcMessage } from '../jsonrpc/jsonrpc.types';
import { Transport } from './transport.interface';

class InMemoryTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  peer!: InMemoryTransport;
  private closed = false;

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) throw new Error('Transport is closed');
    // A JSON round trip, like a real wire: the receiver never shares objects with the sender.
    const copy: unknown = JSON.parse(JSON.stringify(message));
    queueMicrotask(() => this.peer.onmessage?.(copy));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = this.peer.closed = true;
    // Queued after any message already sent, so the peer sees those before onclose.
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    this.onclose?.();
    this.peer.onclose?.();
  }
}

/**
 * Two connected transports for tests and benchmarks. Messages are copied through JSON and
 * delivered asynchronously (on a microtask), in order; closing either side closes both.
 */
export function createInMemoryTransportPair(): [Transport, Transport] {
  const a = new InMemoryTransport();
  const b = new InMemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
