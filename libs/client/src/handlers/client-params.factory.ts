import { MCP_CLIENT_PARAMS_METADATA, McpClientParamType } from '../mcp-client.constants';

/**
 * Gives Nest's parameter step the handler's `(params, ctx)`, so that pipes (`@UsePipes`, the built-in
 * `SamplingParamsPipe`) run on client handlers: Nest applies pipes only to parameters it knows of.
 */
export class ClientParamsFactory {
  exchangeKeyForValue(type: number, _data: unknown, args: unknown[]): unknown {
    if (type === McpClientParamType.PARAMS) return args[0];
    if (type === McpClientParamType.CONTEXT) return args[1];
    return undefined;
  }
}

/**
 * Describes a handler's two parameters (once per method) in the form Nest's route-argument metadata takes. A pipe sees
 * them as `{ type: 'custom', data: 'params' | 'ctx', metatype }` (Nest names every non-HTTP parameter `custom`).
 */
export function describeClientParams(type: Function, methodName: string): void {
  if (Reflect.hasOwnMetadata(MCP_CLIENT_PARAMS_METADATA, type, methodName)) return;
  Reflect.defineMetadata(
    MCP_CLIENT_PARAMS_METADATA,
    {
      [`${McpClientParamType.PARAMS}:0`]: { index: 0, data: 'params', pipes: [] },
      [`${McpClientParamType.CONTEXT}:1`]: { index: 1, data: 'ctx', pipes: [] },
    },
    type,
    methodName,
  );
}
