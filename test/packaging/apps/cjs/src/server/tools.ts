import { CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { IsInt, Max, Min } from 'class-validator';
import { McpArgs, McpCtx, McpPrompt, McpRequestContext, McpResource, McpTool } from '@conduit-mcp/server';

export class AddArgs {
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  a!: number;

  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  b!: number;
}

/** Refuses every MCP call it guards: the packaging test checks that the refusal reaches the client. */
@Injectable()
export class DenyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.getType<string>() !== 'mcp';
  }
}

@Injectable()
export class PackagedTools {
  @McpTool({ name: 'add', description: 'Adds two integers', input: AddArgs })
  add(@McpArgs() args: AddArgs) {
    return {
      content: [{ type: 'text' as const, text: String(args.a + args.b) }],
      structuredContent: { sum: args.a + args.b },
    };
  }

  @McpTool({ name: 'secret', description: 'Always refused by its guard' })
  @UseGuards(DenyGuard)
  secret() {
    return 'never';
  }

  @McpTool({ name: 'confirm', description: 'Asks the client to confirm' })
  async confirm(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('confirm', {
      message: 'Go ahead?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    return answer.action === 'accept' && answer.content?.ok === true ? 'confirmed' : `not confirmed (${answer.action})`;
  }

  @McpResource({ uri: 'note://{id}', name: 'note', mimeType: 'text/plain' })
  note(@McpArgs() { id }: { id: string }) {
    return `note ${id}`;
  }

  @McpPrompt({ name: 'greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] })
  greet(@McpArgs() { name }: { name: string }) {
    return `Say hello to ${name}.`;
  }
}
