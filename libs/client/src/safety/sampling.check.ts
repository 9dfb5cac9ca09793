import {
  CreateMessageRequestParams,
  CreateMessageResult,
  Era,
  ErrorCode,
  checkCreateMessageResult,
  isJsonObject,
} from '@conduit-mcp/core';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { Checked, accepted, refused } from './checked';

/** The sampling options of the module, every one set. */
export type SamplingOptions = Required<NonNullable<McpClientModuleOptions['sampling']>>;

export const DEFAULT_SAMPLING_OPTIONS: SamplingOptions = {
  maxTokens: 4096,
  context: false,
  allowIdle: false,
  maxToolIterations: 5,
  rejectionCode: -1,
};

/** Where a sampling request arrives: its era and how many of our calls to that server are in flight. */
export interface SamplingSituation {
  era: Era;
  callsInFlight: number;
}

const CONTEXTS = ['none', 'thisServer', 'allServers'];
const ROLES = ['user', 'assistant'];

/**
 * Checks `sampling/createMessage` params before the handler sees them: shape (-32602), idle legacy
 * requests and tool loops (`rejectionCode`). Returns a copy with `maxTokens` clamped and
 * `includeContext` coerced to `none` unless context is allowed.
 */
export function checkSamplingRequest(
  params: unknown,
  options: SamplingOptions,
  situation: SamplingSituation,
): Checked<CreateMessageRequestParams> {
  if (!isJsonObject(params)) return refused(ErrorCode.InvalidParams, 'sampling params must be an object');
  const { messages, maxTokens, includeContext } = params;
  if (!Array.isArray(messages)) return refused(ErrorCode.InvalidParams, 'messages must be an array');
  const badMessage = messages.findIndex(
    (m) => !isJsonObject(m) || !ROLES.includes(m.role as string) || m.content == null,
  );
  if (badMessage >= 0) {
    return refused(ErrorCode.InvalidParams, `messages[${badMessage}] must have a role (user or assistant) and content`);
  }
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens <= 0) {
    return refused(ErrorCode.InvalidParams, 'maxTokens must be a positive integer');
  }
  if (includeContext !== undefined && !CONTEXTS.includes(includeContext as string)) {
    return refused(ErrorCode.InvalidParams, `includeContext must be one of ${CONTEXTS.join(', ')}`);
  }
  if (situation.era === 'legacy' && situation.callsInFlight === 0 && !options.allowIdle) {
    return refused(options.rejectionCode, 'sampling refused: no call in flight');
  }
  const toolTurns = messages.filter((m: Record<string, unknown>) => m.role === 'assistant' && hasToolUse(m.content));
  if (toolTurns.length > options.maxToolIterations) {
    return refused(
      options.rejectionCode,
      `sampling refused: ${toolTurns.length} assistant tool_use turns exceed the limit of ${options.maxToolIterations}`,
    );
  }
  return accepted(normalizeSamplingRequest(params as unknown as CreateMessageRequestParams, options));
}

/**
 * A copy of checked sampling params with `maxTokens` clamped to `options.maxTokens` and `includeContext` coerced to
 * `none` unless context is allowed.
 */
export function normalizeSamplingRequest(
  params: CreateMessageRequestParams,
  options: Pick<SamplingOptions, 'maxTokens' | 'context'>,
): CreateMessageRequestParams {
  const normalized = { ...params, maxTokens: Math.min(params.maxTokens, options.maxTokens) };
  if (params.includeContext !== undefined && !options.context) normalized.includeContext = 'none';
  return normalized;
}

/** Checks the handler's answer before it is sent: a role, content and a model name, else -32603. */
export function checkSamplingResult(result: unknown): Checked<CreateMessageResult> {
  const checked = checkCreateMessageResult(result);
  return checked.ok ? accepted(checked.value) : refused(ErrorCode.InternalError, checked.problem);
}

function hasToolUse(content: unknown): boolean {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.some((block) => isJsonObject(block) && block.type === 'tool_use');
}

/** The module's sampling options over the defaults. */
export function samplingOptions(configured: McpClientModuleOptions['sampling']): SamplingOptions {
  return { ...DEFAULT_SAMPLING_OPTIONS, ...configured };
}
