import { SetMetadata } from '@nestjs/common';
import {
  ON_ELICITATION_METADATA,
  ON_LOG_METADATA,
  ON_NOTIFICATION_METADATA,
  ON_ROOTS_METADATA,
  ON_SAMPLING_METADATA,
} from '../mcp-client.constants';

/** Which servers a handler answers (their ids); default every server. */
export interface McpHandlerScope {
  servers?: string[];
}

/**
 * Answers `sampling/createMessage` (legacy request or modern input): `(params, ctx) => CreateMessageResult`.
 * Declares the `sampling` capability. This method is the approval point: the request reached it through the
 * sampling checks (maxTokens clamp, includeContext, idle refusal, tool-loop limit).
 */
export const OnSampling = (scope: McpHandlerScope = {}): MethodDecorator => SetMetadata(ON_SAMPLING_METADATA, scope);

/**
 * Answers `elicitation/create`: `(params, ctx) => ElicitResult`. Declares `elicitation` with the given modes
 * (default `['form']`); a request in another mode never reaches it.
 */
export const OnElicitation = (options: McpHandlerScope & { modes?: Array<'form' | 'url'> } = {}): MethodDecorator =>
  SetMetadata(ON_ELICITATION_METADATA, { ...options, modes: options.modes ?? ['form'] });

/** Answers `roots/list`: `(ctx) => ListRootsResult`. Declares `roots`; only local `file://` roots are sent. */
export const OnRoots = (scope: McpHandlerScope = {}): MethodDecorator => SetMetadata(ON_ROOTS_METADATA, scope);

/** Receives server notifications (all, or one method): `(method, params, ctx) => void`, one at a time, in order. */
export const OnNotification = (method?: string, scope: McpHandlerScope = {}): MethodDecorator =>
  SetMetadata(ON_NOTIFICATION_METADATA, { ...scope, method });

/** Receives server log entries, rate limited and sanitized: `(level, params, ctx) => void`. */
export const OnLog = (scope: McpHandlerScope = {}): MethodDecorator => SetMetadata(ON_LOG_METADATA, scope);
