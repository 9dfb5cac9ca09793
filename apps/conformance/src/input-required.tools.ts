import { Injectable } from '@nestjs/common';
import { CreateMessageResult, ListRootsResult } from '@conduit-mcp/core';
import { McpCtx, McpPrompt, McpRequestContext, McpTool } from '@conduit-mcp/server';

/**
 * The multi round-trip (MRTR, SEP-2322) tools and prompt of the 2026-07-28 `input-required-result-*` scenarios, under
 * the names and input keys the suite expects. Era-agnostic: in the legacy era each question is a server-to-client
 * request on the call's stream; in the modern era the first round answers `input_required` and the retry carries the
 * answers (`inputResponses`) and the sealed `ctx.state` (`requestState`).
 */
@Injectable()
export class InputRequiredTools {
  @McpTool({
    name: 'test_input_required_result_elicitation',
    description: 'Asks the user for their name (elicitation, key "user_name").',
  })
  async elicitation(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('user_name', askName('What is your name?'));
    return answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}!` : `No name given (${answer.action}).`;
  }

  @McpTool({
    name: 'test_input_required_result_sampling',
    description: 'Asks the client\'s model a question (sampling, key "capital_question").',
  })
  async sampling(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.sample('capital_question', {
      messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
      maxTokens: 100,
    });
    return `Sampling response: ${samplingText(answer)}`;
  }

  @McpTool({
    name: 'test_input_required_result_list_roots',
    description: 'Asks the client for its roots (roots/list, key "client_roots").',
  })
  async listRoots(@McpCtx() ctx: McpRequestContext) {
    return `Client roots: ${rootUris(await ctx.input.roots('client_roots'))}`;
  }

  @McpTool({
    name: 'test_input_required_result_request_state',
    description: 'Asks for a confirmation (key "confirm") and checks, on the retry, the state it kept across rounds.',
  })
  async requestState(@McpCtx() ctx: McpRequestContext) {
    const first = ctx.state.get<string>('flow') === undefined;
    if (first) ctx.state.set('flow', 'request_state');
    const answer = await ctx.input.elicit('confirm', askConfirmation('Please confirm'));
    const state = ctx.state.get<string>('flow') === 'request_state' ? 'state-ok' : 'state-missing';
    return `${state}: confirmation ${answer.action}, ok=${String(answer.content?.ok)}`;
  }

  @McpTool({
    name: 'test_input_required_result_multiple_inputs',
    description:
      'Asks for a name, a model greeting and the client roots in one round (keys "user_name", "greeting", "client_roots").',
  })
  async multipleInputs(@McpCtx() ctx: McpRequestContext) {
    ctx.state.set('flow', 'multiple_inputs');
    const [name, greeting, roots] = await Promise.all([
      ctx.input.elicit('user_name', askName('What is your name?')),
      ctx.input.sample('greeting', {
        messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
        maxTokens: 50,
      }),
      ctx.input.roots('client_roots'),
    ]);
    return `name=${String(name.content?.name ?? name.action)}; greeting=${samplingText(greeting)}; roots=${rootUris(roots)}`;
  }

  @McpTool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks for a name (key "step1"), then in a second round for a favourite colour (key "step2").',
  })
  async multiRound(@McpCtx() ctx: McpRequestContext) {
    ctx.state.set('flow', 'multi_round');
    let name = ctx.state.get<string>('name');
    if (name === undefined) {
      const step1 = await ctx.input.elicit('step1', askName('Step 1: What is your name?'));
      name = String(step1.content?.name ?? step1.action);
      ctx.state.set('name', name);
    }
    const step2 = await ctx.input.elicit('step2', {
      message: 'Step 2: What is your favorite color?',
      requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
    });
    return `${name} likes ${String(step2.content?.color ?? step2.action)}.`;
  }

  @McpTool({
    name: 'test_input_required_result_tampered_state',
    description:
      'Asks for a confirmation (key "confirm") with integrity-protected state; a tampered requestState is refused.',
  })
  async tamperedState(@McpCtx() ctx: McpRequestContext) {
    ctx.state.set('flow', 'tampered_state');
    const answer = await ctx.input.elicit('confirm', askConfirmation('Please confirm'));
    return `state-ok: confirmation ${answer.action}`;
  }

  @McpTool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only for the kinds of input the client declared (sampling, elicitation, roots).',
  })
  async capabilities(@McpCtx() ctx: McpRequestContext) {
    const { sampling, elicitation, roots } = ctx.clientCapabilities;
    const asked: Promise<string>[] = [];
    if (sampling) {
      asked.push(
        ctx.input
          .sample('summary', {
            messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the test run' } }],
            maxTokens: 50,
          })
          .then((answer) => `sampling: ${samplingText(answer)}`),
      );
    }
    if (elicitation)
      asked.push(
        ctx.input
          .elicit('confirm', askConfirmation('Please confirm'))
          .then((answer) => `elicitation: ${answer.action}`),
      );
    if (roots) asked.push(ctx.input.roots('client_roots').then((answer) => `roots: ${rootUris(answer)}`));
    if (!asked.length) return 'The client declared no capability to answer questions with.';
    return (await Promise.all(asked)).join('; ');
  }

  @McpPrompt({
    name: 'test_input_required_result_prompt',
    title: 'Prompt Needing Input',
    description: 'A prompt that asks the user for context (elicitation, key "user_context") before it is built',
  })
  async prompt(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('user_context', {
      message: 'What context should the prompt use?',
      requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
    });
    const context = answer.action === 'accept' ? String(answer.content?.context) : `(${answer.action})`;
    return `Use this context: ${context}`;
  }
}

function askName(message: string) {
  return {
    message,
    requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
  };
}

function askConfirmation(message: string) {
  return {
    message,
    requestedSchema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] },
  };
}

function samplingText(answer: CreateMessageResult): string {
  const content = answer.content as { type?: string; text?: string } | undefined;
  return content?.type === 'text' ? String(content.text) : JSON.stringify(answer.content);
}

function rootUris(answer: ListRootsResult): string {
  return answer.roots.map((root) => root.uri).join(', ') || '(none)';
}
