import { Injectable } from '@nestjs/common';
import { ElicitResult } from '@conduit-mcp/core';
import { McpArgs, McpCtx, McpRequestContext, McpTool } from '@conduit-mcp/server';

/** Tools that ask the client for input mid-call: sampling and form elicitation. */
@Injectable()
export class ClientInputTools {
  @McpTool({
    name: 'test_sampling',
    description: "Asks the client's model to answer a prompt (sampling/createMessage).",
    input: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
    },
  })
  async sampling(@McpArgs() args: { prompt: string }, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.sample('answer', {
      messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }],
      maxTokens: 100,
    });
    const content = answer.content as { type?: string; text?: string } | undefined;
    return `LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(answer.content)}`;
  }

  @McpTool({
    name: 'test_elicitation',
    description: 'Asks the user for a username and an email address (elicitation/create).',
    input: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
  })
  async elicitation(@McpArgs() args: { message: string }, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('user', {
      message: args.message,
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
    });
    return `User response: ${describe(answer)}`;
  }

  @McpTool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicits a form whose primitive fields all have default values (SEP-1034).',
  })
  async elicitationDefaults(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('defaults', {
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
      },
    });
    return `Elicitation completed: ${describe(answer)}`;
  }

  @McpTool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicits a form with the five enum variants of SEP-1330.',
  })
  async elicitationEnums(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('enums', {
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Select one option with titles',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      },
    });
    return `Elicitation completed: ${describe(answer)}`;
  }
}

function describe(answer: ElicitResult): string {
  return `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}
