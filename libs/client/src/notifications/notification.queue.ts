import { BoundedQueue } from '@conduit-mcp/core';

/** Most notifications waiting in one connection's queue; new ones are dropped past it. */
export const NOTIFICATION_QUEUE_CAPACITY = 1000;
/** Most bytes of notifications waiting in one connection's queue; new ones are dropped past it. */
export const NOTIFICATION_QUEUE_MAX_BYTES = 8 * 1024 * 1024;

export interface NotificationQueueOptions<T> {
  /** Handles one item; the next waits until it returns or settles. */
  consume: (item: T) => unknown;
  /** Told of each item whose `consume` threw or rejected; the queue goes on. */
  onError: (error: unknown, item: T) => void;
  /** Default {@link NOTIFICATION_QUEUE_CAPACITY}. */
  capacity?: number;
  /** Default {@link NOTIFICATION_QUEUE_MAX_BYTES}; counted with `sizeOf`. */
  maxBytes?: number;
  /**
   * An item's size in bytes, or any number above `room` once it is known to be larger than that (so a large item
   * costs no more than the room left to measure). Default: items count no bytes.
   */
  sizeOf?: (item: T, room: number) => number;
}

/**
 * One connection's notifications, handled one at a time in arrival order, never on the producer's
 * call stack. Bounded: past `capacity` waiting items or `maxBytes` of them, new ones are dropped and counted.
 */
export class NotificationQueue<T> {
  private readonly waiting: BoundedQueue<T>;
  // The size of each waiting item, in the same order.
  private readonly sizes: BoundedQueue<number>;
  private readonly maxBytes: number;
  private readonly sizeOf: ((item: T, room: number) => number) | undefined;
  private waitingBytes = 0;
  private droppedForBytes = 0;
  private readonly consume: (item: T) => unknown;
  private readonly onError: (error: unknown, item: T) => void;
  private running = false;
  private closed = false;
  private idle: (() => void)[] = [];

  constructor({
    consume,
    onError,
    capacity = NOTIFICATION_QUEUE_CAPACITY,
    maxBytes = NOTIFICATION_QUEUE_MAX_BYTES,
    sizeOf,
  }: NotificationQueueOptions<T>) {
    this.waiting = new BoundedQueue<T>(capacity);
    this.sizes = new BoundedQueue<number>(capacity);
    this.maxBytes = maxBytes;
    this.sizeOf = sizeOf;
    this.consume = consume;
    this.onError = onError;
  }

  /** Items waiting (not counting the one being handled). */
  get size(): number {
    return this.waiting.size;
  }

  /** Bytes of the items waiting (as `sizeOf` measured them). */
  get bytes(): number {
    return this.waitingBytes;
  }

  /** Items dropped so far because the queue was full (in items or in bytes). */
  get dropped(): number {
    return this.waiting.dropped + this.droppedForBytes;
  }

  /** Queues `item`; false when it was dropped (queue full, in items or bytes) or the queue is closed. */
  push(item: T): boolean {
    if (this.closed) return false;
    let size = 0;
    if (this.sizeOf) {
      const room = this.maxBytes - this.waitingBytes;
      size = this.sizeOf(item, room);
      if (size > room) {
        this.droppedForBytes++;
        return false;
      }
    }
    if (!this.waiting.push(item)) return false;
    this.sizes.push(size);
    this.waitingBytes += size;
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
      this.waitingBytes -= this.sizes.shift() ?? 0;
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
