export const JSONRPC_VERSION = '2.0';

export type JsonRpcId = string | number;

export interface JsonRpcRequest<P = Record<string, unknown>> {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: P;
}

export interface JsonRpcNotification<P = Record<string, unknown>> {
  jsonrpc: '2.0';
  method: string;
  params?: P;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess<R = Record<string, unknown>> {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: R;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  /**
   * Absent when the request's id could not be read: the MCP schemas allow only a string or integer here, so the
   * JSON-RPC `null` is left out.
   */
  id?: JsonRpcId;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
