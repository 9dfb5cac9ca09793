import { Logger } from '@nestjs/common';
import { McpBusEvent, McpBusListener, McpEventBus } from './mcp-event.bus';

/**
 * The default {@link McpEventBus}: delivers each event to this process's subscribers, synchronously and in
 * subscription order. A listener that throws is logged and does not stop the others.
 */
export class InMemoryEventBus implements McpEventBus {
  private readonly listeners = new Set<McpBusListener>();
  private readonly logger = new Logger('McpEventBus');

  publish(event: McpBusEvent): Promise<void> {
    this.deliver(event);
    return Promise.resolve();
  }

  /** `publish`, for callers in this process that need no promise (the delivery is synchronous). */
  deliver(event: McpBusEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(
          `A listener failed on ${event.type}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  subscribe(listener: McpBusListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
    const entry: McpBusListener = (event) => listener(event);
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }
}
