import { Injectable, Module, Type } from '@nestjs/common';
import { McpError } from '@conduit-mcp/core';
import {
  McpArgs,
  McpCtx,
  McpHttpOptions,
  McpModule,
  McpRequestContext,
  McpTaskLimits,
  McpTool,
} from '@conduit-mcp/server';
import { pause } from './abortable-pause';

/** The code and data of the JSON-RPC error `breaks` ends with. */
export const QUOTA_ERROR = { code: -32001, message: 'quota exhausted', data: { retryAfterMs: 500 } };

/**
 * Tools for the client's task calls: a plain one, tools that may run as tasks (slow, asking between two stretches of
 * work, ending in a JSON-RPC error), one that must (ending in a tool error), and one that asks in an input round before
 * it becomes its task. Each stretch of work stops when the task is cancelled.
 */
@Injectable()
export class TaskJobs {
  @McpTool({ name: 'quick', description: 'Answers at once; never a task' })
  quick() {
    return 'quick';
  }

  @McpTool({
    name: 'slow',
    description: 'Sleeps ms milliseconds',
    task: 'optional',
    input: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
  })
  async slow(@McpArgs() { ms }: { ms: number }, @McpCtx() ctx: McpRequestContext) {
    await pause(ms, ctx.signal);
    return `slept ${ms}`;
  }

  @McpTool({
    name: 'confirm',
    description: 'Works, asks for a confirmation, works again',
    task: 'optional',
    input: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
  })
  async confirm(@McpArgs() { file }: { file: string }, @McpCtx() ctx: McpRequestContext) {
    await pause(300, ctx.signal);
    const answer = await ctx.input.elicit('confirm', {
      message: `Delete ${file}?`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    await pause(300, ctx.signal);
    return answer.action === 'accept' && answer.content?.confirm === true ? `deleted ${file}` : `kept ${file}`;
  }

  @McpTool({ name: 'tool_error', description: 'Ends in a tool error; only as a task', task: 'required' })
  async toolError(@McpCtx() ctx: McpRequestContext) {
    await pause(100, ctx.signal);
    return { content: [{ type: 'text' as const, text: 'disk full' }], isError: true };
  }

  @McpTool({ name: 'breaks', description: 'Ends in a JSON-RPC error', task: 'optional' })
  async breaks(@McpCtx() ctx: McpRequestContext) {
    await pause(100, ctx.signal);
    throw new McpError(QUOTA_ERROR.code, QUOTA_ERROR.message, QUOTA_ERROR.data);
  }

  @McpTool({
    name: 'staged',
    description: 'Asks a name in an input round, then becomes a task that greets it',
    task: 'required',
    taskStart: 'handler',
  })
  async staged(@McpCtx() ctx: McpRequestContext) {
    const who = await ctx.input.elicit('name', {
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    await ctx.runAsTask();
    await pause(100, ctx.signal);
    return `Hello, ${String(who.content?.name)}!`;
  }
}

/** A module serving {@link TaskJobs} over HTTP with these options, or over stdio alone (`false`), in both eras. */
export function tasksModule(
  http: McpHttpOptions | false,
  tasks: McpTaskLimits = { pollIntervalMs: 50 },
): Type<unknown> {
  @Module({
    imports: [McpModule.forRoot({ name: 'tasks-fixture', version: '0.0.1', http, tasks })],
    providers: [TaskJobs],
  })
  class TasksFixtureModule {}
  return TasksFixtureModule;
}
