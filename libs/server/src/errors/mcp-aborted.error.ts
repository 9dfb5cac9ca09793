import { IntrinsicException } from '@nestjs/common';

/** The reason of a request's `AbortSignal`: cancelled by the client, or its session ended. Not logged by Nest. */
export class McpAbortedError extends IntrinsicException {
  constructor(reason: string) {
    super(reason);
    this.name = 'McpAbortedError';
  }
}
