import { PipeTransform, Type } from '@nestjs/common';
import { MCP_PARAMS_METADATA, McpParamType } from '../mcp.constants';

function mcpParam(type: McpParamType, pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator {
  return (target, key, index) => {
    if (key === undefined) return;
    const existing = Reflect.getMetadata(MCP_PARAMS_METADATA, target.constructor, key) ?? {};
    Reflect.defineMetadata(
      MCP_PARAMS_METADATA,
      { ...existing, [`${type}:${index}`]: { index, data: undefined, pipes } },
      target.constructor,
      key,
    );
  };
}

/**
 * Injects the handler's arguments: the validated tool input, the prompt arguments, or the variables of a matched
 * resource template. Pipes given here (or by `@UsePipes`) run on the value.
 */
export const McpArgs = (...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator =>
  mcpParam(McpParamType.ARGS, pipes);

/** Injects the `McpRequestContext` of the request. */
export const McpCtx = (): ParameterDecorator => mcpParam(McpParamType.CONTEXT, []);
