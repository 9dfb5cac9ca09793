import { JsonRpcMessage } from '../jsonrpc/jsonrpc.types';

/** A bidirectional message channel: stdio, an HTTP stream, or an in-memory pair. */
export interface Transport {
  /** Delivers one message to the peer. Rejects when the transport is closed. */
  send(message: JsonRpcMessage): Promise<void>;
  /** Called for each message the peer sends; `raw` failed JSON parsing is reported through `onerror`. */
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  close(): Promise<void>;
}
