import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpRequestContext, McpServer, McpTool } from '@conduit-mcp/server';

const NOTE_INPUT = {
  type: 'object',
  properties: { text: { type: 'string', maxLength: 1000 } },
  required: ['text'],
} as const;

/**
 * The example's tools: which instance answered, a durable task for the worker, a question to the client and a
 * notification to every instance.
 */
@Injectable()
export class NotesTools {
  constructor(private readonly server: McpServer) {}

  @McpTool({ name: 'whoami', description: 'Names the instance (container) that answered' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    return { instance: process.env.HOSTNAME ?? String(process.pid), session: ctx.sessionId ?? null };
  }

  @McpTool({
    name: 'summarize_notes',
    description: 'A long job run by the task worker: survives the instance that took the call',
    task: 'optional',
    durable: true,
  })
  async summarizeNotes(@McpCtx() ctx: McpRequestContext) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, 5_000);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(ctx.signal.reason)), { once: true });
    });
    return `Summarized by ${process.env.HOSTNAME ?? process.pid}.`;
  }

  @McpTool({ name: 'add_note', description: 'Asks for confirmation, then tells subscribers', input: NOTE_INPUT })
  async addNote(@McpArgs() args: { text: string }, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('confirm', {
      message: `Add the note "${args.text}"?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    if (answer.action !== 'accept' || answer.content?.ok !== true) return 'Not added.';
    await this.server.notifyResourceUpdated('notes://index');
    return 'Added.';
  }
}
