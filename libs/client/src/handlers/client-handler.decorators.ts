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
 * Answers `sampling/createMessage` (legacy request or modern input): `(params, ctx: McpInputContext) =>
 * CreateMessageResult`. Declares the `sampling` capability. This method is the approval point; around it run, in
 * order, `InputBudgetGuard`, `SamplingRequestGuard`, your own guards and interceptors, `SamplingParamsPipe` (maxTokens
 * clamped, includeContext coerced), your pipes, the method, then `SamplingResultInterceptor`.
 *
 * @example
 * ```ts
 * @OnSampling({ servers: ['assistant'] })
 * @UseGuards(BusinessHoursGuard)
 * async sample(params: CreateMessageRequestParams, ctx: McpInputContext): Promise<CreateMessageResult> {
 *   return this.llm.complete(params.messages, params.maxTokens);
 * }
 * ```
 */
export const OnSampling = (scope: McpHandlerScope = {}): MethodDecorator => SetMetadata(ON_SAMPLING_METADATA, scope);

/**
 * Answers `elicitation/create`: `(params, ctx: McpInputContext) => ElicitResult`. Declares `elicitation` with the
 * given modes (default `['form']`). Around it run `InputBudgetGuard`, `ElicitationRequestGuard` (a request in another
 * mode, a non-https URL or a nested form never reaches it), your guards, `ElicitationAnswerInterceptor`,
 * `ElicitationContextInterceptor` (url, host, idn, originMismatch, fields in `ctx`), your interceptors and pipes.
 *
 * @example
 * ```ts
 * @OnElicitation({ modes: ['form'] })
 * async elicit(params: ElicitRequestParams, ctx: McpInputContext): Promise<ElicitResult> {
 *   if (params.mode === 'url') return { action: 'decline' }; // form mode only: never reached
 *   if (Object.values(ctx.fields ?? {}).some((field) => field.sensitiveSuspected)) return { action: 'decline' };
 *   const content = await this.dialogs.askForm(params.message, params.requestedSchema);
 *   return content ? { action: 'accept', content } : { action: 'cancel' };
 * }
 * ```
 */
export const OnElicitation = (options: McpHandlerScope & { modes?: Array<'form' | 'url'> } = {}): MethodDecorator =>
  SetMetadata(ON_ELICITATION_METADATA, { ...options, modes: options.modes ?? ['form'] });

/**
 * Answers `roots/list`: `(params: {}, ctx: McpInputContext) => ListRootsResult`. Declares `roots`. Around it run
 * `InputBudgetGuard`, your enhancers, and `LocalRootsInterceptor`: only local `file://` roots are sent.
 *
 * @example
 * ```ts
 * @OnRoots({ servers: ['fs'] })
 * roots(params: {}, ctx: McpInputContext): ListRootsResult {
 *   return { roots: [{ uri: 'file:///home/ada/project', name: 'project' }] };
 * }
 * ```
 */
export const OnRoots = (scope: McpHandlerScope = {}): MethodDecorator => SetMetadata(ON_ROOTS_METADATA, scope);

/**
 * Receives server notifications (all, or one method): `(params, ctx: McpClientNotificationContext) => void`, the
 * method in `ctx.method`; one at a time, in order. Log entries arrive here too, sanitized as for `@OnLog`.
 */
export const OnNotification = (method?: string, scope: McpHandlerScope = {}): MethodDecorator =>
  SetMetadata(ON_NOTIFICATION_METADATA, { ...scope, method });

/**
 * Receives server log entries, rate limited and sanitized: `(entry: { level, logger?, data }, ctx:
 * McpClientNotificationContext) => void`.
 */
export const OnLog = (scope: McpHandlerScope = {}): MethodDecorator => SetMetadata(ON_LOG_METADATA, scope);
