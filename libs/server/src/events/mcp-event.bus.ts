import { JsonRpcId, JsonRpcMessage, JsonRpcResponse, TaskStatus } from '@conduit-mcp/core';
import type { McpStateHealth } from '../health/state-health.interface';
import type { McpListKind } from '../registry/mcp-list-kind';

/**
 * What travels on the bus: events, not wire JSON, so that each instance renders them for its own sessions and
 * streams. Every event names the server it belongs to (an app may run several on one bus).
 */
export type McpBusEvent =
  /** A list changed: every session and `subscriptions/listen` stream that cares is told. */
  | { type: 'list-changed'; server: string; list: McpListKind }
  /** A resource changed: its subscribers are told. */
  | { type: 'resource-updated'; server: string; uri: string }
  /** A message for a session whose stream another instance holds. */
  | { type: 'session-message'; server: string; sessionId: string; message: JsonRpcMessage }
  /** A client's answer to a server-to-client request that waits on another instance. */
  | { type: 'client-response'; server: string; sessionId: string; response: JsonRpcResponse }
  /** A `notifications/cancelled` for a request that runs on another instance. */
  | { type: 'cancelled'; server: string; sessionId: string; requestId: JsonRpcId; reason?: string }
  /** `McpServer.endSessionsOf(principal)`: every instance ends the sessions of `principal` it holds live. */
  | { type: 'sessions-ended'; server: string; principal: string }
  /** A session was ended for good (`DELETE`, `endSessionsOf`, its stream or transport closed): live copies close. */
  | { type: 'session-deleted'; server: string; sessionId: string }
  /** A session's record changed (subscriptions, log level…): the instances holding a live copy reload it. */
  | { type: 'session-changed'; server: string; sessionId: string }
  /** A task was cancelled (`cancelled` in the store already): the instance or worker running it aborts its handler. */
  | { type: 'task-cancel'; server: string; taskId: string; owner: string }
  /** Answers to a task's questions (`tasks/update`, checked), for the instance or worker running it. */
  | { type: 'task-answers'; server: string; taskId: string; owner: string; responses: Record<string, unknown> }
  /** A worker changed a task's status (in the store already): the instance that queued it tells its listeners. */
  | { type: 'task-status'; server: string; taskId: string; owner: string; status: TaskStatus };

/** Handles the events of the bus; never throws into the bus. */
export type McpBusListener = (event: McpBusEvent) => void;

/**
 * Carries events between the instances of a server (the in-memory default: within one process). Publishing
 * resolves once the bus took the event; every subscriber of every instance (the publisher's included) gets it once.
 * Inject it with the token of the same name; choose it with `McpModule.forRoot({ eventBus })`.
 */
export interface McpEventBus {
  publish(event: McpBusEvent): Promise<void>;
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: McpBusListener): () => void;
  /**
   * Optional: whether the bus can carry events between instances now (a shared bus: its connections).
   * `McpHealthIndicator` reports it and is down while it is down; an answer slower than 2 s counts as down. Never
   * rejects.
   */
  health?(): Promise<McpStateHealth>;
}

/** The injection token of the {@link McpEventBus} (interface and token under one name). */
export const McpEventBus = Symbol('McpEventBus');
