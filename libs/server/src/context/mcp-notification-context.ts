import { TransportFacts } from '../dispatch/transport-facts.interface';
import { McpSession } from '../session/mcp-session';

/**
 * What the server's handler of a client notification (`notifications/initialized`, `notifications/cancelled`) knows
 * of it: the notification's counterpart of `McpRequestContext`. A notification has no id, no answer and nothing tied
 * to it, so it is the server, the session it arrived on and the transport's facts.
 */
export interface McpNotificationContext {
  readonly server: string;
  readonly method: string;
  readonly session: McpSession;
  readonly transport: TransportFacts;
}
