/** Work units of one slice: a delivery costs {@link DELIVERY_COST}, a target passed over (not interested) one. */
const SLICE_BUDGET = 128 * 16;
const DELIVERY_COST = 16;

type Step = () => boolean | undefined;

/**
 * Delivers broadcasts (list changes, resource updates) to many sessions or streams in bounded slices: the first slice
 * runs at once, the rest on later turns of the event loop, so a broadcast to thousands of streams does not stall the
 * requests in between. Broadcasts are delivered in the order they were added, each target seeing them in that order.
 * Targets are read from the iterable as the slices run: one that ended meanwhile is passed over by `deliver`, one
 * added meanwhile may get the broadcast too (it was live when delivered to).
 */
export class BroadcastFanOut {
  private readonly steps: Step[] = [];
  private scheduled = false;

  /** Broadcasts waiting for a later slice. */
  get pending(): number {
    return this.steps.length;
  }

  /**
   * Calls `deliver` with each target, in slices; `deliver` returns whether it sent something (a target passed over
   * costs less of a slice than a delivery).
   */
  add<T>(targets: Iterable<T>, deliver: (target: T) => boolean): void {
    const iterator = targets[Symbol.iterator]();
    this.steps.push(() => {
      const next = iterator.next();
      return next.done ? undefined : deliver(next.value);
    });
    if (!this.scheduled) this.run();
  }

  private readonly run = (): void => {
    this.scheduled = false;
    let budget = SLICE_BUDGET;
    while (this.steps.length) {
      if (budget <= 0) {
        this.scheduled = true;
        setImmediate(this.run);
        return;
      }
      let delivered: boolean | undefined;
      try {
        delivered = this.steps[0]();
      } catch {
        // A target that throws must not stop the others from hearing of it (sinks never throw; this is a guard).
        delivered = false;
      }
      if (delivered === undefined) this.steps.shift();
      else budget -= delivered ? DELIVERY_COST : 1;
    }
  };
}
