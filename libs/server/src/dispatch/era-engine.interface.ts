import { Era, JsonRpcRequest } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { RequestCancellation } from '../session/request-cancellation';
import { DispatchOrigin } from './dispatch-origin.interface';

/** What a route produced: its result, or what it threw. */
export type RouteOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: unknown };

/** How one request is served in its era, once the era's checks passed. */
export interface EraPlan {
  era: Era;
  revision: string;
  /** The handler context of the request. */
  context(cancellation: RequestCancellation): McpRequestContext;
  /** The result to send for what the route produced; throws to answer with an error. */
  settle(outcome: RouteOutcome, ctx: McpRequestContext): Record<string, unknown>;
}

/** An era's way of serving requests: checks what the era requires of a request and plans its serving. */
export interface EraEngine {
  /** Throws an McpError when the request does not meet the era's requirements. */
  plan(request: JsonRpcRequest, origin: DispatchOrigin): EraPlan;
}
