import type { TracingChannel } from 'node:diagnostics_channel';

/**
 * Whether anyone subscribes to any sub-channel of `channel`, or has bound a store to its `start`: what
 * `TracingChannel#hasSubscribers` answers from Node 20.13 on, for every Node 20. Publishers build nothing while it is
 * false.
 */
export function tracingObserved(channel: TracingChannel<unknown, object>): boolean {
  return (
    channel.start.hasSubscribers ||
    channel.end.hasSubscribers ||
    channel.asyncStart.hasSubscribers ||
    channel.asyncEnd.hasSubscribers ||
    channel.error.hasSubscribers
  );
}

/**
 * Publishes the end of one traced operation, its outcome already filled in `context`: `error` when it failed, then
 * `asyncStart` and `asyncEnd` (the last message of the operation).
 */
export function publishTraceEnd<T extends object>(
  channel: TracingChannel<unknown, T>,
  context: T,
  failed: boolean,
): void {
  if (failed) channel.error.publish(context);
  channel.asyncStart.publish(context);
  channel.asyncEnd.publish(context);
}
