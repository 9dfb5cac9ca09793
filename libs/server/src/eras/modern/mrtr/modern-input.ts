import {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  McpError,
  SchemaValidator,
  invalidParams,
  sanitizeText,
} from '@conduit-mcp/core';
import { McpInput } from '../../../context/mcp-input.interface';
import { McpInputRequired } from './input-required.signal';
import { InputRequest, checkAnswer, elicitationQuestion, missingCapability } from './input-question';

export type { InputRequest } from './input-question';

/**
 * Modern era (MRTR): a question whose answer came with the request (in `inputResponses`, or carried over from an
 * earlier round in `requestState`) is answered at once, after validation; any other is recorded and stops the
 * handler. The dispatcher then answers `input_required` with every recorded question. An answer that fails
 * validation ends the request with -32602, even if the handler catches the error it gets.
 */
export class ModernInput implements McpInput {
  /** Questions asked this round and not answered yet. */
  readonly requests: Record<string, InputRequest> = {};
  /** Answers the handler used, to carry into the next round. */
  readonly used: Record<string, unknown> = {};
  /**
   * Set when a question needed a capability the request did not declare, or its answer was invalid: that refusal ends
   * the request.
   */
  refusal: McpError | undefined;

  constructor(
    private readonly answers: Record<string, unknown>,
    private readonly capabilities: ClientCapabilities,
    private readonly schemas: SchemaValidator,
  ) {}

  get pending(): boolean {
    return Object.keys(this.requests).length > 0;
  }

  async elicit(key: string, params: ElicitRequestParams): Promise<ElicitResult> {
    return this.question(key, elicitationQuestion(params)) as Promise<ElicitResult>;
  }

  async sample(key: string, params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    const question: InputRequest = {
      method: 'sampling/createMessage',
      params: params as unknown as Record<string, unknown>,
    };
    return this.question(key, question) as Promise<CreateMessageResult>;
  }

  async roots(key: string): Promise<ListRootsResult> {
    return this.question(key, { method: 'roots/list', params: {} }) as Promise<ListRootsResult>;
  }

  // Answered by the request (checked), or recorded to be asked when the capability is declared.
  private async question(key: string, question: InputRequest): Promise<unknown> {
    const answer = this.answer(key);
    if (answer !== undefined) {
      const check = checkAnswer(question, answer, this.schemas);
      if (check.ok) return check.value;
      this.refusal ??= invalidParams(`Invalid input response "${sanitizeText(key, 64)}": ${check.problem}`);
      throw this.refusal;
    }
    const missing = missingCapability(question, this.capabilities);
    if (missing) throw (this.refusal ??= missing);
    this.requests[key] = question;
    throw new McpInputRequired(key);
  }

  private answer(key: string): unknown {
    if (!Object.prototype.hasOwnProperty.call(this.answers, key)) return undefined;
    const answer = this.answers[key];
    this.used[key] = answer;
    return answer;
  }
}

/** Outside `tools/call`, `prompts/get` and `resources/read` a modern request cannot ask the client anything. */
export class NoInput implements McpInput {
  constructor(private readonly method: string) {}

  elicit(): Promise<never> {
    return this.refuse();
  }

  sample(): Promise<never> {
    return this.refuse();
  }

  roots(): Promise<never> {
    return this.refuse();
  }

  private refuse(): Promise<never> {
    return Promise.reject(
      new Error(`${this.method} cannot ask the client for input; only tools/call, prompts/get and resources/read can`),
    );
  }
}
