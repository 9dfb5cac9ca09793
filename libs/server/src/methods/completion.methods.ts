import { Injectable } from '@nestjs/common';
import { CompleteResult, invalidParams } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { toMcpError } from '../dispatch/error.mapper';
import { McpParams } from '../dispatch/mcp-route.interface';
import { toCompleteResult } from './result.normalizer';
import { CompletionRef, McpRegistry } from '../registry/mcp.registry';
import { echo, optionalObject, requireString } from './params';

/** `completion/complete`: prompt arguments and resource-template variables. */
@Injectable()
export class CompletionMethods {
  constructor(private readonly registry: McpRegistry) {}

  async complete(params: McpParams, ctx: McpRequestContext): Promise<CompleteResult> {
    const ref = this.ref(optionalObject(params, 'ref'));
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

  private ref(ref: Record<string, unknown>): CompletionRef {
    if (ref.type === 'ref/prompt') {
      const name = requireString(ref, 'name');
      if (!this.registry.prompt(name)) throw invalidParams(`Unknown prompt: ${echo(name)}`);
      return { type: 'ref/prompt', name };
    }
    if (ref.type === 'ref/resource') {
      const uri = requireString(ref, 'uri');
      if (!this.registry.template(uri)) throw invalidParams(`Unknown resource template: ${echo(uri)}`);
      return { type: 'ref/resource', uri };
    }
    throw invalidParams('Invalid "ref": type must be ref/prompt or ref/resource');
  }
}
