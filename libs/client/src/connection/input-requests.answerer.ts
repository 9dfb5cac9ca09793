import { ClientCapabilities, isJsonObject, sanitizeText } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { INPUT_CAPABILITY, McpInputMethod } from './input-responder.interface';

/** What answering a server's input requests needs of the connection. */
export interface InputAnswerHost {
  /** What this client declared it can answer. */
  capabilities(): ClientCapabilities;
  /** Answers one input request through the handler of its kind (checks, guards, telemetry included). */
  answer(
    method: McpInputMethod,
    params: Record<string, unknown>,
    assigns: Record<string, unknown> | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>>;
}

/**
 * Answers a set of modern-era input requests (`{ key: { method, params } }`: an `input_required` round, or the
 * questions of a task) and resolves the answers by key. Every request is checked before any handler runs, so a set
 * the client cannot finish asks no one; a handler that throws fails the whole set as `input_handler`.
 */
export async function answerInputRequests(
  host: InputAnswerHost,
  requests: unknown,
  assigns: Record<string, unknown> | undefined,
  signal: AbortSignal | undefined,
): Promise<Record<string, Record<string, unknown>>> {
  if (!isJsonObject(requests))
    throw new McpClientError('protocol', 'The server sent inputRequests that are not an object');
  const capabilities = host.capabilities();
  const entries = Object.entries(requests) as Array<[string, { method?: unknown; params?: unknown } | undefined]>;
  for (const [, request] of entries) {
    const method = request?.method as McpInputMethod;
    if (!Object.hasOwn(INPUT_CAPABILITY, method))
      throw new McpClientError('protocol', `The server asked for unknown input ${sanitizeText(String(method), 64)}`);
    if (!capabilities[INPUT_CAPABILITY[method]])
      throw new McpClientError('protocol', `The server asked for ${method}, which this client did not declare`);
  }
  // Pairs, then fromEntries: a key such as "__proto__" stays an answer of its own.
  const answers: Array<[string, Record<string, unknown>]> = [];
  for (const [key, request] of entries) {
    const method = request!.method as McpInputMethod;
    try {
      answers.push([
        key,
        await host.answer(method, (request!.params ?? {}) as Record<string, unknown>, assigns, signal),
      ]);
    } catch (error) {
      throw new McpClientError(
        'input_handler',
        `The ${method} handler refused "${sanitizeText(key, 64)}": ${(error as Error).message}`,
        (error as { code?: number }).code,
        undefined,
        { cause: error },
      );
    }
  }
  return Object.fromEntries(answers);
}
