import { SetMetadata, Type } from '@nestjs/common';
import { Icon, JsonSchemaObject, Meta, ToolAnnotations } from '@conduit-mcp/core';
import { MCP_TOOL_METADATA } from '../mcp.constants';
import { McpCacheHint } from '../interfaces/mcp-module-options.interface';

/** Options of `@McpTool`. */
/** Whether a tool's calls may, must or must not run as tasks. */
export type McpToolTaskSupport = 'forbidden' | 'optional' | 'required';

export interface McpToolOptions {
  /** Tool name: 1–128 of `[A-Za-z0-9_.-]`. Default: the method name. */
  name?: string;
  title?: string;
  description?: string;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /**
   * Input: a class-validator DTO class (its JSON Schema is generated, arguments are validated with class-validator
   * and handed over as an instance) or a JSON Schema object (validated with ajv). Default: no arguments.
   */
  input?: Type<object> | JsonSchemaObject;
  /** Output schema; `structuredContent` is checked against it. A DTO class or a JSON Schema object. */
  output?: Type<object> | JsonSchemaObject;
  /** Which server(s) the tool belongs to when the app has several. Default: every server. */
  server?: string | string[];
  /**
   * Whether a call may run as a task (the `io.modelcontextprotocol/tasks` extension of the modern era): `'optional'`
   * — a task when the request declares the extension, inline otherwise; `'required'` — a request that does not
   * declare it is refused (-32021); `'forbidden'` (default) — always inline. The handler is the same either way: in a
   * task, `ctx.input.*` questions are answered through `tasks/update` and `ctx.signal` aborts on `tasks/cancel`.
   * In the legacy era (2025-11-25's experimental tasks) a call becomes a task when its request carries `task`.
   */
  task?: McpToolTaskSupport;
  /**
   * When a call that runs as a task becomes one: `'call'` (default) — before the handler runs; `'handler'` — when the
   * handler calls `ctx.runAsTask()`, after the questions it asks first as ordinary input rounds (until then the call
   * is an ordinary one; a handler that returns without calling it answers inline).
   */
  taskStart?: 'call' | 'handler';
  /**
   * Runs the tool's tasks in a worker process when the module has a `taskQueue` (`@conduit-mcp/redis`: a BullMQ
   * queue run by `McpTaskWorker`): the call is queued, and the task survives the restart of the instance that
   * accepted it; cancels, answers and status changes cross through the event bus. Without a queue the task runs in
   * the instance, as any task. Needs `task: 'optional'` or `'required'`; not with `taskStart: 'handler'` (such a
   * call has begun on the instance). A worker runs a task at most once: one whose worker died is `failed`, not run
   * again. Default false.
   */
  durable?: boolean;
  /** Modern-era caching hints for this tool (the list it appears in takes the shortest `ttlMs`, and `private` wins). */
  cache?: McpCacheHint;
  _meta?: Meta;
}

/**
 * Exposes a provider method as an MCP tool. The method gets the validated arguments through `@McpArgs()` and the
 * request's context through `@McpCtx()`; it returns a `CallToolResult`, a string (one text block) or a plain object
 * (`structuredContent`).
 *
 * @example
 * ```ts
 * @Injectable()
 * export class WeatherTools {
 *   @McpTool({
 *     name: 'forecast',
 *     description: 'The forecast for a city',
 *     input: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
 *   })
 *   forecast(@McpArgs() args: { city: string }, @McpCtx() ctx: McpRequestContext) {
 *     ctx.log('info', `forecast for ${args.city}`);
 *     return { city: args.city, summary: 'sunny' };
 *   }
 * }
 * ```
 */
export const McpTool = (options: McpToolOptions = {}): MethodDecorator => SetMetadata(MCP_TOOL_METADATA, options);
