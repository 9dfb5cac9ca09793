import { Injectable } from '@nestjs/common';
import { McpError } from '@conduit-mcp/core';
import { channel } from 'node:diagnostics_channel';
import { McpInputRequired } from '../eras/modern/mrtr/input-required.signal';

/** Names of the `node:diagnostics_channel` channels the server publishes on. */
export const MCP_CHANNELS = {
  request: 'conduit-mcp:request',
  tool: 'conduit-mcp:tool',
  resource: 'conduit-mcp:resource',
  prompt: 'conduit-mcp:prompt',
  cancelled: 'conduit-mcp:cancelled',
} as const;

/**
 * Outcome of a handler run. `tool_error`: a tool result with `isError: true`; `input_required`: a modern-era round
 * that ended asking the client for input.
 */
export type McpOutcome = 'ok' | 'error' | 'tool_error' | 'cancelled' | 'input_required';

/** Published on `conduit-mcp:request` once per request answered (or cancelled). */
export interface McpRequestEvent {
  server: string;
  /** The JSON-RPC method, sanitized and clamped (a client may send anything). */
  method: string;
  status: 'ok' | 'error' | 'cancelled';
  /** JSON-RPC error code when `status` is `error`. */
  errorCode?: number;
  durationMs: number;
  transport: string;
  era: 'legacy' | 'modern';
}

/** Published on `conduit-mcp:tool`, `conduit-mcp:resource`, `conduit-mcp:prompt` once per handler run. */
export interface McpHandlerEvent {
  server: string;
  /** Tool name, prompt name, or the resource URI (sanitized, clamped) as read. */
  name: string;
  /** For resources served by a template: the template. */
  template?: string;
  status: McpOutcome;
  errorCode?: number;
  durationMs: number;
}

/** Published on `conduit-mcp:cancelled` per `notifications/cancelled` received. */
export interface McpCancelledEvent {
  server: string;
  /** The cancelled request's id, sanitized. */
  requestId: string;
  /** The client's reason, sanitized and clamped. */
  reason?: string;
  /** Whether a request with that id was running (and was aborted). */
  found: boolean;
}

const channels = {
  request: channel(MCP_CHANNELS.request),
  tool: channel(MCP_CHANNELS.tool),
  resource: channel(MCP_CHANNELS.resource),
  prompt: channel(MCP_CHANNELS.prompt),
  cancelled: channel(MCP_CHANNELS.cancelled),
};

/** Publishes MCP events on `node:diagnostics_channel`; free when nobody subscribes. */
@Injectable()
export class McpTelemetry {
  /** Whether anyone subscribes to the channel: events are only built for an audience. */
  observed(kind: keyof typeof channels): boolean {
    return channels[kind].hasSubscribers;
  }

  request(event: McpRequestEvent): void {
    if (channels.request.hasSubscribers) channels.request.publish(event);
  }

  handler(kind: 'tool' | 'resource' | 'prompt', event: McpHandlerEvent): void {
    const target = channels[kind];
    if (target.hasSubscribers) target.publish(event);
  }

  /**
   * Runs one handler and publishes its event on the `kind` channel: its duration, and its outcome (`outcome` of the
   * result, `cancelled` when the request was cancelled, else `error` with the code of the McpError it threw).
   */
  track<T>(
    kind: 'tool' | 'resource' | 'prompt',
    event: Pick<McpHandlerEvent, 'server' | 'name' | 'template'>,
    cancellation: { readonly cancelled: boolean },
    run: () => Promise<T>,
    outcome: (result: T) => McpOutcome = () => 'ok',
  ): Promise<T> {
    // Nobody listens: no clock, no wrapper (a wrapper is a promise and a turn of the microtask queue per call).
    if (!this.observed(kind)) return run();
    return this.timed(kind, event, cancellation, run, outcome);
  }

  private async timed<T>(
    kind: 'tool' | 'resource' | 'prompt',
    event: Pick<McpHandlerEvent, 'server' | 'name' | 'template'>,
    cancellation: { readonly cancelled: boolean },
    run: () => Promise<T>,
    outcome: (result: T) => McpOutcome,
  ): Promise<T> {
    const started = performance.now();
    let status: McpOutcome = 'error';
    let errorCode: number | undefined;
    try {
      const result = await run();
      status = outcome(result);
      return result;
    } catch (error) {
      if (cancellation.cancelled) status = 'cancelled';
      else if (error instanceof McpInputRequired) status = 'input_required';
      else if (error instanceof McpError) errorCode = error.code;
      throw error;
    } finally {
      if (this.observed(kind))
        this.handler(kind, { ...event, status, errorCode, durationMs: McpTelemetry.since(started) });
    }
  }

  cancelled(event: McpCancelledEvent): void {
    if (channels.cancelled.hasSubscribers) channels.cancelled.publish(event);
  }

  /** Milliseconds since `start` (a `performance.now()` reading). */
  static since(start: number): number {
    return Math.round((performance.now() - start) * 1000) / 1000;
  }
}
