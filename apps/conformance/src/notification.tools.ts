import { Injectable } from '@nestjs/common';
import { McpCtx, McpRequestContext, McpTool } from '@conduit-mcp/server';

/** Tools that send notifications while they run: log messages and progress. */
@Injectable()
export class NotificationTools {
  @McpTool({ name: 'test_tool_with_logging', description: 'Sends three info log messages while it runs.' })
  async withLogging(@McpCtx() ctx: McpRequestContext) {
    ctx.log('info', 'Tool execution started', 'conduit-conformance');
    await delay(50, ctx.signal);
    ctx.log('info', 'Tool processing data', 'conduit-conformance');
    await delay(50, ctx.signal);
    ctx.log('info', 'Tool execution completed', 'conduit-conformance');
    return 'Tool with logging executed successfully';
  }

  @McpTool({ name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100 while it runs.' })
  async withProgress(@McpCtx() ctx: McpRequestContext) {
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await delay(50, ctx.signal);
      ctx.progress(progress, 100, `Completed step ${progress} of 100`);
    }
    return `Progress reported for token ${String(ctx.meta.progressToken ?? 'none')}`;
  }

  @McpTool({
    name: 'test_reconnection',
    description: 'SSE polling (SEP-1699): closes its stream mid-call, then answers after the client reconnects.',
  })
  async reconnection(@McpCtx() ctx: McpRequestContext) {
    ctx.closeSseStream();
    await delay(100, ctx.signal);
    return 'Reconnection test completed successfully.';
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
