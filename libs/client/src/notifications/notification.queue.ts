import { BoundedQueue } from '@conduit-mcp/core';

/** Most notifications waiting in one connection's queue; new ones are dropped past it. */
export const NOTIFICATION_QUEUE_CAPACITY = 1000;

export interface NotificationQueueOptions<T> {
  /** Handles one item; the next waits until it returns or settles. */
  consume: (item: T) => unknown;
  /** Told of each item whose `consume` threw or rejected; the queue goes on. */
  onError: (error: unknown, item: T) => void;
  /** Default {@link NOTIFICATION_QUEUE_CAPACITY}. */
  capacity?: number;
}

/**
 * One connection's notifications, handled one at a time in arrival order, never on the producer's
 * call stack. Bounded: past `capacity` waiting items, new ones are dropped and counted.
 */
export class NotificationQueue<T> {
  private readonly waiting: BoundedQueue<T>;
  private readonly consume: (item: T) => unknown;
  private readonly onError: (error: unknown, item: T) => void;
  private running = false;
  private closed = false;
  private idle: (() => void)[] = [];

  constructor({ consume, onError, capacity = NOTIFICATION_QUEUE_CAPACITY }: NotificationQueueOptions<T>) {
    this.waiting = new BoundedQueue<T>(capacity);
    this.consume = consume;
    this.onError = onError;
  }

  /** Items waiting (not counting the one being handled). */
  get size(): number {
    return this.waiting.size;
  }

  /** Items dropped so far because the queue was full. */
  get dropped(): number {
    return this.waiting.dropped;
  }

  /** Queues `item`; false when it was dropped (queue full) or the queue is closed. */
  push(item: T): boolean {
    if (this.closed || !this.waiting.push(item)) return false;
    if (!this.running) {
      this.running = true;
      queueMicrotask(() => void this.run());
    }
    return true;
  }

  /** Resolves once every queued item has been handled. */
  drain(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Stops accepting items; those already queued are still handled. */
  close(): void {
    this.closed = true;
  }

  private async run(): Promise<void> {
    while (this.waiting.size > 0) {
      const item = this.waiting.shift() as T;
      try {
        await this.consume(item);
      } catch (error) {
        this.report(error, item);
      }
    }
    this.running = false;
    const idle = this.idle;
    this.idle = [];
    for (const resolve of idle) resolve();
  }

  private report(error: unknown, item: T): void {
    try {
      this.onError(error, item);
    } catch {
      // A failing error reporter must not stop the queue.
    }
  }
}
