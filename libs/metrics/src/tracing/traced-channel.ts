import { Context, context, diag } from '@opentelemetry/api';
import type { AsyncLocalStorage } from 'node:async_hooks';
import { Channel, tracingChannel } from 'node:diagnostics_channel';

/** How the traces of one tracing channel become spans. Each hook is called with the trace object of one operation. */
export interface ChannelSpans<T extends object> {
  /**
   * Opens the span when `start` is published with its stores entered around the operation (`start.runStores`):
   * returns the context to make active around it (the span's), or undefined to leave the active one as it is.
   */
  open?(trace: T): Context | undefined;
  /** Called on `start`, in the publisher's async context (after `open`, when both are given). */
  start?(trace: T): void;
  /** Called on `asyncEnd`, the last message of an operation, once its outcome is known. */
  close(trace: T): void;
}

/**
 * Attaches `spans` to the tracing channel `name` (a store bound to its `start` when `spans.open` is given, subscribers
 * to `start` and `asyncEnd`); returns what detaches them all. No hook ever throws into the publisher.
 */
export function attachSpans<T extends object>(name: string, spans: ChannelSpans<T>): () => void {
  const channel = tracingChannel<Context | undefined, T>(name);
  const detach: Array<() => void> = [];
  const { open, start } = spans;
  if (open) {
    // Node only needs `run(value, fn)` of a bound store: this one enters the context in whatever context manager the
    // user registered with the OpenTelemetry API (none: the handler runs as it would).
    const store = {
      run: <R>(active: Context | undefined, fn: () => R): R => (active ? context.with(active, fn) : fn()),
    } as unknown as AsyncLocalStorage<Context | undefined>;
    // A transform that throws becomes an uncaught exception in Node: guarded.
    channel.start.bindStore(store, (trace) => guarded(() => open.call(spans, trace)));
    detach.push(() => channel.start.unbindStore(store));
  }
  if (start) detach.push(subscribe(channel.start, (trace) => start.call(spans, trace as T)));
  detach.push(subscribe(channel.asyncEnd, (trace) => spans.close(trace as T)));
  return () => detach.forEach((undo) => undo());
}

function subscribe<S, T extends object>(channel: Channel<S, T>, hook: (message: unknown) => void): () => void {
  const listener = (message: unknown) => guarded(() => hook(message));
  channel.subscribe(listener);
  return () => channel.unsubscribe(listener);
}

// A tracing failure must never fail the operation traced: it goes to OpenTelemetry's own diagnostic logger.
function guarded<R>(fn: () => R): R | undefined {
  try {
    return fn();
  } catch (error) {
    diag.error('@conduit-mcp/metrics: a span could not be recorded', error);
    return undefined;
  }
}
