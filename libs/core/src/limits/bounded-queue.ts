/** A FIFO queue with a fixed capacity that refuses (drops) items when full. */
export class BoundedQueue<T> {
  private readonly items: (T | undefined)[] = [];
  private head = 0;
  private count = 0;
  private droppedCount = 0;

  /**
   * @param capacity most items held at once
   * @param onDrop called with each item refused because the queue was full
   */
  constructor(
    readonly capacity: number,
    private readonly onDrop?: (item: T) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be an integer >= 1');
  }

  /** Items currently queued. */
  get size(): number {
    return this.count;
  }

  /** Items refused so far because the queue was full. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Appends `item`; returns false (and drops it) when the queue is full. */
  push(item: T): boolean {
    if (this.count === this.capacity) {
      this.droppedCount++;
      this.onDrop?.(item);
      return false;
    }
    this.items[(this.head + this.count) % this.capacity] = item;
    this.count++;
    return true;
  }

  /** Removes and returns the oldest item, or undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    return item;
  }

  /** Removes every queued item; the dropped count is kept. */
  clear(): void {
    this.items.length = 0;
    this.head = 0;
    this.count = 0;
  }
}
