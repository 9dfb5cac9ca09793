import {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
} from '@conduit-mcp/core';

/**
 * Asks the client for input, the same way in both eras. `key` names the question so that, in the modern era, the
 * answer given on a retry reaches the same question; in the legacy era it only labels the request.
 */
export interface McpInput {
  elicit(key: string, params: ElicitRequestParams): Promise<ElicitResult>;
  sample(key: string, params: CreateMessageRequestParams): Promise<CreateMessageResult>;
  roots(key: string): Promise<ListRootsResult>;
}
