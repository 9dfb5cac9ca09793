import type { ClientCapabilities, Era, Implementation } from '@conduit-mcp/core';
import type { McpAuthInfo } from '../auth/mcp-auth-info.interface';
import type { TransportKind } from '../dispatch/transport-facts.interface';

/** Who a queued task runs for: the caller's `ctx.auth` as guards and handlers read it, without the credential. */
export type McpTaskJobAuth = Omit<McpAuthInfo, 'token'>;

/**
 * A durable tool's call (`@McpTool({ durable: true })`) handed to a worker: JSON data, what the worker needs to run
 * the tool as the instance that accepted the call would have. The task itself — status, questions, result — lives in
 * the `TaskStore`, which both share; the job only says what to run.
 */
export interface McpTaskJob {
  /** The task, created in the store before the job is queued (also the job's id: a job is queued once). */
  taskId: string;
  owner: string;
  server: string;
  tool: string;
  /** The era of the request that created the task: it decides how a tool error ends the task. */
  era: Era;
  /** The protocol revision of that request. */
  protocolVersion: string;
  /** The call's arguments as sent, which passed the tool's input check; the worker checks them again (a DTO is built there). */
  arguments: Record<string, unknown>;
  /** The capabilities of that request: what the task's questions may ask. */
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** The transport that carried the call. */
  transport: TransportKind;
  /** Who made the call (never the token itself); absent without an authenticator. */
  auth?: McpTaskJobAuth;
  /** Milliseconds since the epoch: the task's `createdAt`. */
  createdAt: number;
}

/**
 * Where the tasks of durable tools are queued for workers (`@conduit-mcp/redis`'s `RedisTaskQueue`, run by
 * `McpTaskWorker`). Without one, durable tools run as tasks in the instance that accepted the call.
 * Inject it with the token of the same name; choose it with `McpModule.forRoot({ taskQueue })`.
 */
export interface McpTaskQueue {
  /**
   * Queues `job`; resolves once the queue holds it (a job already queued under the same task id stays as it is).
   * Rejects when it cannot: the task is then marked `failed`.
   */
  enqueue(job: McpTaskJob): Promise<void>;
}

/** The injection token of the {@link McpTaskQueue} (interface and token under one name). */
export const McpTaskQueue = Symbol('McpTaskQueue');
