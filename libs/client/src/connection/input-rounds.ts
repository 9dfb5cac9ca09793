import { ClientCapabilities, sanitizeText } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { INPUT_CAPABILITY, McpInputMethod } from './input-responder.interface';
import { McpCallOptions } from './mcp-call-options';

/** Most input rounds of one call, unless `maxInputRounds` says otherwise. */
export const DEFAULT_INPUT_ROUNDS = 10;

/** What the rounds need of their connection. */
export interface InputRoundsHost {
  /** Sends one request and waits for its result (no rounds). */
  send(method: string, params: Record<string, unknown>, options: McpCallOptions): Promise<Record<string, unknown>>;
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
 * A modern-era call that may answer `input_required` (MRTR): each round's questions are answered in the calling flow,
 * then the call is sent again with the answers and the server's `requestState`, at most `maxRounds` times. The
 * call's `timeout` counts the time on the wire across rounds (answering pauses it, as in the legacy era);
 * `maxTotalTimeout` bounds the whole call, answers included.
 */
export class InputRounds {
  constructor(
    private readonly host: InputRoundsHost,
    private readonly defaultTimeoutMs: number,
    private readonly maxRounds: number,
  ) {}

  async run(
    method: string,
    params: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<Record<string, unknown>> {
    const started = Date.now();
    const timeout = options.timeout ?? this.defaultTimeoutMs;
    const totalLeft = () =>
      options.maxTotalTimeout === undefined ? undefined : options.maxTotalTimeout - (Date.now() - started);
    const expired = () =>
      new McpClientError('timeout', `${method} exceeded its total timeout of ${options.maxTotalTimeout} ms`);
    let wire = 0;
    let extra: Record<string, unknown> = {};
    for (let round = 0; ; round++) {
      const left = totalLeft();
      if (timeout - wire <= 0) throw new McpClientError('timeout', `${method} timed out after its deadline`);
      if (left !== undefined && left <= 0) throw expired();
      const sentAt = Date.now();
      const result = await this.host.send(
        method,
        { ...params, ...extra },
        { ...options, timeout: timeout - wire, maxTotalTimeout: left },
      );
      wire += Date.now() - sentAt;
      if (result.resultType !== 'input_required') return result;
      if (round >= this.maxRounds)
        throw new McpClientError('protocol', `${method} still needed input after ${this.maxRounds} rounds`);
      extra = await this.fulfil(result, options, totalLeft(), expired);
    }
  }

  /** Answers one round's questions, within what is left of the call's total timeout. */
  private async fulfil(
    result: Record<string, unknown>,
    options: McpCallOptions,
    totalLeftMs: number | undefined,
    expired: () => McpClientError,
  ): Promise<Record<string, unknown>> {
    if (totalLeftMs === undefined) return this.answerRound(result, options, options.signal);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(expired()), Math.max(0, totalLeftMs));
    const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
    const timedOut = new Promise<never>((_, reject) =>
      deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason), { once: true }),
    );
    try {
      return await Promise.race([this.answerRound(result, options, signal), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async answerRound(
    result: Record<string, unknown>,
    options: McpCallOptions,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const requests = (result.inputRequests ?? {}) as Record<string, { method?: unknown; params?: unknown }>;
    const capabilities = this.host.capabilities();
    const answers: Record<string, unknown> = {};
    const entries = Object.entries(requests);
    // Every request of the round is checked before any handler runs: a round the client cannot finish asks no one.
    for (const [, request] of entries) {
      const method = request?.method as McpInputMethod;
      if (!(method in INPUT_CAPABILITY))
        throw new McpClientError('protocol', `The server asked for unknown input ${sanitizeText(String(method), 64)}`);
      if (!capabilities[INPUT_CAPABILITY[method]])
        throw new McpClientError('protocol', `The server asked for ${method}, which this client did not declare`);
    }
    for (const [key, request] of entries) {
      const method = request.method as McpInputMethod;
      try {
        answers[key] = await this.host.answer(
          method,
          (request.params ?? {}) as Record<string, unknown>,
          options.assigns,
          signal,
        );
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
    return {
      inputResponses: answers,
      ...(result.requestState !== undefined ? { requestState: result.requestState } : {}),
    };
  }
}
