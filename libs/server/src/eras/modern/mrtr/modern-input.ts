import {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ErrorCode,
  ListRootsResult,
  McpError,
  SchemaValidator,
  checkCreateMessageResult,
  checkElicitResult,
  checkElicitationSchema,
  checkListRootsResult,
  invalidParams,
  sanitizeText,
} from '@conduit-mcp/core';
import type { AnswerCheck } from '@conduit-mcp/core';
import { McpInput } from '../../../context/mcp-input.interface';
import { McpInputRequired } from './input-required.signal';

/** One question of an `input_required` result, under its key. */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: Record<string, unknown>;
}

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
    const url = params.mode === 'url';
    if (!url) {
      const problems = checkElicitationSchema(params.requestedSchema);
      if (problems.length) throw new Error(`Invalid elicitation schema: ${problems.join('; ')}`);
    }
    const answer = this.answer(key);
    if (answer !== undefined) return this.checked(key, checkElicitResult(params, answer, this.schemas));
    const elicitation = this.capabilities.elicitation as { form?: object; url?: object } | undefined;
    const supported = url ? !!elicitation?.url : !!elicitation && (!!elicitation.form || !elicitation.url);
    if (!supported) this.missing({ elicitation: url ? { url: {} } : { form: {} } });
    return this.ask(key, 'elicitation/create', { ...params, mode: url ? 'url' : 'form' });
  }

  async sample(key: string, params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    const answer = this.answer(key);
    if (answer !== undefined) return this.checked(key, checkCreateMessageResult(answer));
    if (!this.capabilities.sampling) this.missing({ sampling: {} });
    return this.ask(key, 'sampling/createMessage', params as unknown as Record<string, unknown>);
  }

  async roots(key: string): Promise<ListRootsResult> {
    const answer = this.answer(key);
    if (answer !== undefined) return this.checked(key, checkListRootsResult(answer));
    if (!this.capabilities.roots) this.missing({ roots: {} });
    return this.ask(key, 'roots/list', {});
  }

  private answer(key: string): unknown {
    if (!Object.prototype.hasOwnProperty.call(this.answers, key)) return undefined;
    const answer = this.answers[key];
    this.used[key] = answer;
    return answer;
  }

  // The answer the handler gets is the checked one (an ElicitResult keeps only action, content and _meta).
  private checked<T>(key: string, check: AnswerCheck<T>): T {
    if (check.ok) return check.value;
    this.refusal ??= invalidParams(`Invalid input response "${sanitizeText(key, 64)}": ${check.problem}`);
    throw this.refusal;
  }

  private ask(key: string, method: InputRequest['method'], params: Record<string, unknown>): never {
    this.requests[key] = { method, params };
    throw new McpInputRequired(key);
  }

  private missing(requiredCapabilities: ClientCapabilities): never {
    this.refusal ??= new McpError(ErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
      requiredCapabilities,
    });
    throw this.refusal;
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
