import { Injectable } from '@nestjs/common';
import { ErrorCode, McpError } from '@conduit-mcp/core';
import { McpArgs, McpCtx, McpRequestContext, McpTool } from '@conduit-mcp/server';

const NAME_AND_CONFIRM = {
  type: 'object' as const,
  properties: { name: { type: 'string' as const }, confirm: { type: 'boolean' as const } },
};

/** Waits `ms`, or until `signal` aborts (a cancelled task stops at once). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

/**
 * The tools of the tasks extension's scenarios (`tasks-*`, io.modelcontextprotocol/tasks): a plain tool, tools that
 * may run as tasks (slow, failing at the protocol level, asking one or two questions), one that requires a task and
 * one that asks before it becomes its task.
 */
@Injectable()
export class TaskTools {
  @McpTool({
    name: 'greet',
    description: 'Greets by name, at once (never a task)',
    input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  })
  greet(@McpArgs() { name }: { name: string }) {
    return `Hello, ${name}!`;
  }

  @McpTool({
    name: 'slow_compute',
    description: 'Works for the given number of seconds (a task when the client takes tasks)',
    task: 'optional',
    input: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0, maximum: 300 }, label: { type: 'string' } },
      required: ['seconds'],
    },
  })
  async slowCompute(@McpArgs() args: { seconds: number; label?: string }, @McpCtx() ctx: McpRequestContext) {
    await pause(args.seconds * 1_000, ctx.signal);
    return `computed ${args.label ?? 'result'} in ${args.seconds}s`;
  }

  @McpTool({ name: 'failing_job', description: 'Always ends in a tool error; must run as a task', task: 'required' })
  async failingJob(@McpCtx() ctx: McpRequestContext) {
    await pause(200, ctx.signal);
    return { content: [{ type: 'text' as const, text: 'job failed' }], isError: true };
  }

  @McpTool({ name: 'protocol_error_job', description: 'Always ends in a JSON-RPC error', task: 'optional' })
  async protocolErrorJob(@McpCtx() ctx: McpRequestContext) {
    await pause(200, ctx.signal);
    throw new McpError(ErrorCode.InternalError, 'simulated protocol failure');
  }

  @McpTool({
    name: 'confirm_delete',
    description: 'Asks for a confirmation before deleting a file',
    task: 'optional',
    input: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
  })
  async confirmDelete(@McpArgs() { filename }: { filename: string }, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('confirm', {
      message: `Delete ${filename}?`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    return answer.action === 'accept' && answer.content?.confirm === true ? `deleted ${filename}` : `kept ${filename}`;
  }

  @McpTool({
    name: 'test_tool_with_task',
    description: 'Asks a name in an ordinary input round, then becomes a task that greets it',
    task: 'required',
    taskStart: 'handler',
  })
  async toolWithTask(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('user_name', {
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    await ctx.runAsTask();
    await pause(100, ctx.signal);
    return `Hello, ${String(answer.content?.name)}!`;
  }

  @McpTool({ name: 'multi_input', description: 'Asks two questions at once', task: 'optional' })
  async multiInput(@McpCtx() ctx: McpRequestContext) {
    const [first, second] = await Promise.all([
      ctx.input.elicit('first', { message: 'First name?', requestedSchema: NAME_AND_CONFIRM }),
      ctx.input.elicit('second', { message: 'Second name?', requestedSchema: NAME_AND_CONFIRM }),
    ]);
    return `got ${String(first.content?.name)} and ${String(second.content?.name)}`;
  }
}
