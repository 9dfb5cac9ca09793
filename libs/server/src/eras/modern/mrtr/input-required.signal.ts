import { IntrinsicException } from '@nestjs/common';

/**
 * Thrown by `ctx.input.*` in a modern-era request when the answer is not in the request yet: the handler stops, and
 * the dispatcher answers `input_required` with every question asked this round. Not an error, so Nest does not log it.
 */
export class McpInputRequired extends IntrinsicException {
  constructor(readonly key: string) {
    super(`Input "${key}" is required`);
    this.name = 'McpInputRequired';
  }
}
