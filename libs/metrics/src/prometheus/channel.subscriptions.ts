import { TracingChannelSubscribers, subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';

/**
 * The channel subscriptions of one metrics instance, undone together. A listener never throws: an exception in a
 * diagnostics_channel subscriber is rethrown on the next tick, where it would take the app down for a metric.
 */
export class ChannelSubscriptions {
  private readonly undo: Array<() => void> = [];

  get active(): boolean {
    return this.undo.length > 0;
  }

  /** `listener` for every message on the plain channel `name`. */
  on<T>(name: string, listener: (message: T) => void): void {
    const onMessage = (message: unknown) => quietly(listener, message as T);
    // The module-level subscribe keeps the channel alive as long as it has subscribers.
    subscribe(name, onMessage);
    this.undo.push(() => unsubscribe(name, onMessage));
  }

  /** `listener` for the `asyncEnd` of every context on the tracing channel `name`: once per traced operation. */
  onAsyncEnd<T extends object>(name: string, listener: (context: T) => void): void {
    const channel = tracingChannel<unknown, T>(name);
    // Only asyncEnd: Node subscribes the handlers given and skips the others.
    const handlers = { asyncEnd: (context: T) => quietly(listener, context) } as TracingChannelSubscribers<T>;
    channel.subscribe(handlers);
    this.undo.push(() => channel.unsubscribe(handlers));
  }

  /** Undoes every subscription; nothing when there is none. */
  clear(): void {
    for (const undo of this.undo.splice(0)) undo();
  }
}

function quietly<T>(listener: (message: T) => void, message: T): void {
  try {
    listener(message);
  } catch {
    // A payload the metrics cannot read is not counted; the operation it describes goes on.
  }
}
