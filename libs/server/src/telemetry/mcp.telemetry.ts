import { Injectable } from '@nestjs/common';
import { channel } from 'node:diagnostics_channel';
import {
  McpCallIdentity,
  McpCallScope,
  handlerObserved,
  publishHandlerEvent,
  publishUnreachedCall,
  since,
  trackHandlerCall,
  trackRequestTarget,
  unknownRequestTarget,
} from './handler-events';
import { sessionsObserved, streamsObserved } from './lifecycle-events';
import { requestTraced } from './request-events';
import {
  MCP_CHANNELS,
  McpCancelledEvent,
  McpHandlerEvent,
  McpHandlerKind,
  McpOutcome,
  McpRequestEvent,
  McpTaskEvent,
} from './mcp.channels';

export { MCP_CHANNELS } from './mcp.channels';
export type {
  McpCancelledEvent,
  McpHandlerEvent,
  McpHandlerKind,
  McpHandlerTrace,
  McpOutcome,
  McpRequestEvent,
  McpRequestTarget,
  McpRequestTrace,
  McpSessionEvent,
  McpStreamEvent,
  McpTaskEvent,
} from './mcp.channels';

const channels = {
  request: channel(MCP_CHANNELS.request),
  cancelled: channel(MCP_CHANNELS.cancelled),
  task: channel(MCP_CHANNELS.task),
};

/**
 * Publishes MCP events on `node:diagnostics_channel`; free when nobody subscribes. Request and cancellation events
 * come from the dispatcher; tool, resource and prompt events from `McpTelemetryInterceptor` around each handler,
 * settled here by the method that invoked it (`track`).
 */
@Injectable()
export class McpTelemetry {
  /**
   * Whether anyone subscribes to the channel (for tools, resources and prompts: the plain or the tracing channel):
   * events are only built for an audience.
   */
  observed(kind: keyof typeof MCP_CHANNELS): boolean {
    switch (kind) {
      case 'request':
        return channels.request.hasSubscribers || requestTraced();
      case 'cancelled':
      case 'task':
        return channels[kind].hasSubscribers;
      case 'session':
        return sessionsObserved();
      case 'stream':
        return streamsObserved();
      default:
        return handlerObserved(kind);
    }
  }

  request(event: McpRequestEvent): void {
    if (channels.request.hasSubscribers) channels.request.publish(event);
  }

  /** Publishes an event on the plain `kind` channel (not on its tracing channel). */
  handler(kind: McpHandlerKind, event: McpHandlerEvent): void {
    publishHandlerEvent(kind, event);
  }

  /**
   * Runs one call of a tool, resource or prompt and settles its event on the `kind` channels once its outcome is
   * known: its duration, and its outcome (`outcome` of the result — by default `tool_error` for a tool result with
   * `isError` —, `cancelled` when the request was cancelled, `input_required` for a modern-era question, else `error`
   * with the code of the McpError it threw). The event's run is the one `McpTelemetryInterceptor` opened around the
   * handler; a call that never reached it (invalid arguments, a guard's refusal) is published whole, at its end.
   */
  track<T>(
    kind: McpHandlerKind,
    event: McpCallIdentity,
    scope: McpCallScope,
    run: () => Promise<T>,
    outcome?: (result: T) => McpOutcome,
  ): Promise<T> {
    if (handlerObserved(kind)) return trackHandlerCall(kind, event, scope, run, outcome);
    // Only the request is traced: it learns its target, nothing more.
    if (requestTraced()) return trackRequestTarget(kind, event, scope, run, outcome);
    // Nobody listens: no clock, no wrapper (a wrapper is a promise and a turn of the microtask queue per call).
    return run();
  }

  /**
   * Publishes the event of a call that names no such tool, resource or prompt (status `error`, with the code of
   * `error`), and returns `error`, for the caller to throw. `event.name` is the name asked for, sanitized.
   */
  unknown<E>(kind: McpHandlerKind, event: McpCallIdentity, scope: McpCallScope, error: E): E {
    if (handlerObserved(kind)) publishUnreachedCall(kind, event, scope, error);
    else if (requestTraced()) unknownRequestTarget(kind, event, scope);
    return error;
  }

  cancelled(event: McpCancelledEvent): void {
    if (channels.cancelled.hasSubscribers) channels.cancelled.publish(event);
  }

  /** Publishes a task's creation or change of status (built only when someone listens). */
  task(event: () => McpTaskEvent): void {
    if (channels.task.hasSubscribers) channels.task.publish(event());
  }

  /** Milliseconds since `start` (a `performance.now()` reading). */
  static since(start: number): number {
    return since(start);
  }
}
