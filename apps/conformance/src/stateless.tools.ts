import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpPrompt, McpRequestContext, McpServer, McpTool } from '@conduit-mcp/server';

const DYNAMIC_TOOL = 'test_dynamic_tool';
const DYNAMIC_PROMPT = 'test_dynamic_prompt';

/**
 * The diagnostic tools of the 2026-07-28 `server-stateless` scenario (SEP-2575) and of the SEP-2243 header scenarios:
 * a tool that needs a capability the client may not have declared, a tool that asks for input, a tool that logs, and
 * hooks that change the tool and prompt lists so that `subscriptions/listen` streams hear about it.
 */
@Injectable()
export class StatelessTools {
  constructor(private readonly server: McpServer) {}

  @McpTool({
    name: 'test_missing_capability',
    description: "Needs the client's sampling capability: a client that did not declare it is refused (-32021).",
  })
  async missingCapability(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.sample('completion', {
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
      maxTokens: 20,
    });
    const content = answer.content as { type?: string; text?: string } | undefined;
    return `Sampling response: ${content?.type === 'text' ? String(content.text) : JSON.stringify(answer.content)}`;
  }

  @McpTool({
    name: 'test_streaming_elicitation',
    description:
      'Asks the user for a confirmation; the question travels as an input_required result, never as a request.',
  })
  async streamingElicitation(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('confirmation', {
      message: 'Continue?',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    return `Elicitation ${answer.action}`;
  }

  @McpTool({
    name: 'test_logging_tool',
    description:
      'Logs three messages while it runs; they reach the client only at the level it asked for (_meta logLevel).',
  })
  async logging(@McpCtx() ctx: McpRequestContext) {
    ctx.log('info', 'Logging tool started', 'conduit-conformance');
    ctx.log('warning', 'Logging tool working', 'conduit-conformance');
    ctx.log('info', 'Logging tool finished', 'conduit-conformance');
    return 'Logging tool completed';
  }

  @McpTool({ name: DYNAMIC_TOOL, description: 'A tool that test_trigger_tool_change hides and shows again.' })
  dynamicTool() {
    return 'The dynamic tool is here.';
  }

  @McpPrompt({
    name: DYNAMIC_PROMPT,
    title: 'Dynamic Prompt',
    description: 'A prompt that test_trigger_prompt_change hides and shows again',
  })
  dynamicPrompt() {
    return 'The dynamic prompt is here.';
  }

  @McpTool({
    name: 'test_trigger_tool_change',
    description: `Changes the tool list (hides, then shows ${DYNAMIC_TOOL}) so that clients hear notifications/tools/list_changed.`,
  })
  triggerToolChange() {
    this.server.setToolEnabled(DYNAMIC_TOOL, false);
    this.server.setToolEnabled(DYNAMIC_TOOL, true);
    return 'The tool list changed.';
  }

  @McpTool({
    name: 'test_trigger_prompt_change',
    description: `Changes the prompt list (hides, then shows ${DYNAMIC_PROMPT}) so that clients hear notifications/prompts/list_changed.`,
  })
  triggerPromptChange() {
    this.server.setPromptEnabled(DYNAMIC_PROMPT, false);
    this.server.setPromptEnabled(DYNAMIC_PROMPT, true);
    return 'The prompt list changed.';
  }

  @McpTool({
    name: 'test_custom_header',
    description: 'Echoes its region, which a modern client also sends as the Mcp-Param-Region header (SEP-2243).',
    input: {
      type: 'object',
      properties: { region: { type: 'string', description: 'A region name', 'x-mcp-header': 'Region' } },
      required: ['region'],
    },
  })
  customHeader(@McpArgs() { region }: { region: string }) {
    return `Region: ${region}`;
  }
}
