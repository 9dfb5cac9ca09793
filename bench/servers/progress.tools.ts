// The `progress` tool of the streaming section (conduit.ts registers it with BENCH_PROGRESS=1): sends `count`
// notifications/progress for its request (when the client gave a `_meta.progressToken`), each with a message of
// `size` bytes, then answers "done <count>".
import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpRequestContext, McpTool } from '@conduit-mcp/server';

const PROGRESS_INPUT = {
  type: 'object',
  properties: {
    count: { type: 'integer', minimum: 1, maximum: 100_000 },
    size: { type: 'integer', minimum: 0, maximum: 1024 },
  },
  required: ['count'],
} as const;

// Events sent between two turns of the event loop: a handler reporting progress does work between its reports, and
// a burst of this many lets the stream's writes reach the socket instead of piling them all up before the first.
const BURST = 64;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

@Injectable()
export class ProgressTools {
  @McpTool({
    name: 'progress',
    description: 'Sends `count` progress notifications, then answers',
    input: PROGRESS_INPUT,
  })
  async progress(@McpArgs() args: { count: number; size?: number }, @McpCtx() ctx: McpRequestContext) {
    const message = args.size ? 'x'.repeat(args.size) : undefined;
    for (let i = 1; i <= args.count; i++) {
      // A closed stream cancels the request (modern) or ends the session's interest: stop reporting then.
      if (ctx.cancelled) break;
      ctx.progress(i, args.count, message);
      if (i % BURST === 0) await yieldToLoop();
    }
    return `done ${args.count}`;
  }
}

/** The providers a bench module needs for `progress`. */
export const PROGRESS_PROVIDERS = [ProgressTools];
