import { JsonRpcRequest, Meta } from '@conduit-mcp/core';

/** The request's `params._meta` when it is an object, else `{}`. */
export function metaOf(request: JsonRpcRequest): Meta {
  const meta = request.params?._meta;
  return meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Meta) : {};
}
