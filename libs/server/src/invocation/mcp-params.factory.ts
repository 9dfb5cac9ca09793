import { ParamsFactory } from './nest-internals';
import { McpParamType } from '../mcp.constants';

/** Maps `@McpArgs()` and `@McpCtx()` to the handler call's arguments `[args, ctx]`. */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, _data: unknown, args: unknown[]): unknown {
    if (type === McpParamType.ARGS) return args[0];
    if (type === McpParamType.CONTEXT) return args[1];
    return undefined;
  }
}
