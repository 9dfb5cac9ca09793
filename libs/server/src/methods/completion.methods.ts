import { Injectable } from '@nestjs/common';
import { CompleteResult, invalidParams } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { toMcpError } from '../dispatch/error.mapper';
import { McpParams } from '../dispatch/mcp-route.interface';
import { toCompleteResult } from './result.normalizer';
import { CompletionRef, McpRegistry } from '../registry/mcp.registry';
import { echo, optionalObject, requireString } from './params';
import { McpScopePolicy } from '../auth/scope.policy';

/** `completion/complete`: prompt arguments and resource-template variables. */
@Injectable()
export class CompletionMethods {
  constructor(
    private readonly registry: McpRegistry,
    private readonly scopes: McpScopePolicy,
  ) {}

  async complete(params: McpParams, ctx: McpRequestContext): Promise<CompleteResult> {
    const { ref, target } = this.ref(optionalObject(params, 'ref'));
    // Completing a prompt's or template's arguments needs what using it needs.
    this.scopes.check(target.scopes, ctx);
    const argument = optionalObject(params, 'argument');
    const name = requireString(argument, 'name');
    const value = requireString(argument, 'value');
    const given = optionalObject(optionalObject(params, 'context'), 'arguments');
    const completion = this.registry.completion(ref, name);
    if (!completion) return { completion: { values: [] } };
    ctx.target = { kind: 'completion', name };
    try {
      return toCompleteResult(await completion.invoke({ value, arguments: given }, ctx));
    } catch (error) {
      throw toMcpError(error);
    }
  }

  private ref(ref: Record<string, unknown>): { ref: CompletionRef; target: { scopes: readonly string[] } } {
    if (ref.type === 'ref/prompt') {
      const name = requireString(ref, 'name');
      const prompt = this.registry.prompt(name);
      if (!prompt) throw invalidParams(`Unknown prompt: ${echo(name)}`);
      return { ref: { type: 'ref/prompt', name }, target: prompt };
    }
    if (ref.type === 'ref/resource') {
      const uri = requireString(ref, 'uri');
      const template = this.registry.template(uri);
      if (!template) throw invalidParams(`Unknown resource template: ${echo(uri)}`);
      return { ref: { type: 'ref/resource', uri }, target: template };
    }
    throw invalidParams('Invalid "ref": type must be ref/prompt or ref/resource');
  }
}
