import { Era, ServerCapabilities } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { McpNotificationContext } from '../context/mcp-notification-context';

/** Params of an incoming message, always an object (an absent `params` is `{}`). */
export type McpParams = Record<string, unknown>;

export interface McpRequestRoute {
  kind: 'request';
  eras: readonly Era[];
  /** A server capability the method needs; without it the method is unknown (-32601). */
  capability?: keyof ServerCapabilities;
  run(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>>;
}

export interface McpNotificationRoute {
  kind: 'notification';
  eras: readonly Era[];
  run(params: McpParams, ctx: McpNotificationContext): void;
}

export type McpRoute = McpRequestRoute | McpNotificationRoute;

/** The routing table: method → route. */
export type McpRoutingTable = ReadonlyMap<string, McpRoute>;
