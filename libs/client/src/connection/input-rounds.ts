import { McpClientError } from '../errors/mcp-client.error';
import { InputAnswerHost, answerInputRequests } from './input-requests.answerer';
import { McpCallOptions } from './mcp-call-options';

/** Most input rounds of one call, unless `maxInputRounds` says otherwise. */
export const DEFAULT_INPUT_ROUNDS = 10;

/** What the rounds need of their connection. */
export interface InputRoundsHost extends InputAnswerHost {
  /** Sends one request and waits for its result (no rounds). */
  send(method: string, params: Record<string, unknown>, options: McpCallOptions): Promise<Record<string, unknown>>;
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
    const answers = await answerInputRequests(this.host, result.inputRequests ?? {}, options.assigns, signal);
    return {
      inputResponses: answers,
      ...(result.requestState !== undefined ? { requestState: result.requestState } : {}),
    };
  }
}
