import { IntrinsicException } from '@nestjs/common';
import { ContentBlock } from '@conduit-mcp/core';

/**
 * Thrown by a tool to report a failure the model should see: the call answers with `isError: true` and this
 * message (or the given content) instead of a JSON-RPC error. An expected outcome, so Nest does not log it.
 */
export class McpToolError extends IntrinsicException {
  constructor(
    message: string,
    readonly content?: ContentBlock[],
  ) {
    super(message);
    this.name = 'McpToolError';
  }
}
