import { ClassifiedMessage, JsonRpcResponse } from '@conduit-mcp/core';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { LiveSessions } from '../session/live-sessions';
import { MessageSink } from '../session/message-sink.interface';
import { DispatchOrigin } from './dispatch-origin.interface';

/** What a transport needs of one MCP server: its options, its sessions, and the dispatcher's single entry point. */
export interface McpEndpoint {
  readonly options: McpModuleOptions;
  readonly sessions: LiveSessions;
  /**
   * Handles one incoming message (request, notification or response) and resolves with the response to send,
   * or undefined when there is none (notifications, responses, cancelled requests). Never rejects.
   * A successful `initialize` sets `origin.session.revision`.
   */
  handle(message: unknown, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined>;
  /** `handle` for a message the transport already classified (it is not classified again). */
  handleClassified?(message: ClassifiedMessage, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined>;
  /**
   * Where messages for session `sessionId` go when this instance does not hold its stream: to the instance that does
   * (through the event bus). Absent: such messages have nowhere to go.
   */
  relayTo?(sessionId: string): MessageSink;
}
