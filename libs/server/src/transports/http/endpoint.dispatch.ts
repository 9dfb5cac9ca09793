import { ClassifiedMessage, JsonRpcResponse, errorResponse, internalError } from '@conduit-mcp/core';
import { DispatchOrigin } from '../../dispatch/dispatch-origin.interface';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';

/**
 * Hands a classified message to the endpoint and resolves with its response: an invalid message gets its error
 * response, and a failing endpoint (which breaks its contract) an internal error. Never rejects.
 */
export async function dispatchMessage(
  endpoint: McpEndpoint,
  message: ClassifiedMessage,
  origin: DispatchOrigin,
): Promise<JsonRpcResponse | undefined> {
  if (message.kind === 'invalid') return errorResponse(message.id, message.error);
  try {
    return await (endpoint.handleClassified
      ? endpoint.handleClassified(message, origin)
      : endpoint.handle(message.message, origin));
  } catch {
    return message.kind === 'request' ? errorResponse(message.message.id, internalError()) : undefined;
  }
}
