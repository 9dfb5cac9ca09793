import {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  SchemaValidator,
  invalidParams,
  sanitizeText,
} from '@conduit-mcp/core';
import { McpInput } from '../context/mcp-input.interface';
import { McpAbortedError } from '../errors/mcp-aborted.error';
import { InputRequest, checkAnswer, elicitationQuestion, missingCapability } from '../eras/modern/mrtr/input-question';

/** Where a task's questions are published (its record's `inputRequests`), for the client to read with `tasks/get`. */
export type PublishQuestions = (outstanding: Record<string, InputRequest>) => Promise<void>;

interface Waiting {
  question: InputRequest;
  resolve(answer: unknown): void;
  reject(error: Error): void;
}

/**
 * A modern-era task's questions (the tasks extension): each is published under a key unique over the task's life —
 * the handler's key, or `key#2`, `key#3`… when it asks under the same key again — and waits, the task
 * `input_required`, until `tasks/update` answers it (checked by core's answer checks) or the task ends. The
 * capabilities are those the request that created the task declared.
 */
export class ModernTaskInput implements McpInput {
  private readonly waiting = new Map<string, Waiting>();
  private readonly used = new Set<string>();

  constructor(
    private readonly capabilities: ClientCapabilities,
    private readonly schemas: SchemaValidator,
    private readonly publish: PublishQuestions,
    private readonly signal: AbortSignal,
  ) {}

  elicit(key: string, params: ElicitRequestParams): Promise<ElicitResult> {
    return this.ask(key, elicitationQuestion(params)) as Promise<ElicitResult>;
  }

  sample(key: string, params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    const question: InputRequest = { method: 'sampling/createMessage', params: { ...params } };
    return this.ask(key, question) as Promise<CreateMessageResult>;
  }

  roots(key: string): Promise<ListRootsResult> {
    return this.ask(key, { method: 'roots/list', params: {} }) as Promise<ListRootsResult>;
  }

  /** The questions waiting for an answer, by key. */
  get outstanding(): Record<string, InputRequest> {
    return Object.fromEntries([...this.waiting].map(([key, waiting]) => [key, waiting.question]));
  }

  /**
   * Answers the outstanding questions named in `responses` (other keys are ignored: never asked, answered already,
   * or ended). An invalid answer is refused with -32602 and its question stays outstanding; nothing is answered
   * then. Resolves once the remaining questions are published.
   */
  async answer(responses: Record<string, unknown>): Promise<void> {
    const accepted = checkResponses((key) => this.waiting.get(key)?.question, responses, this.schemas).map(
      ({ key, value }) => ({ waiting: this.waiting.get(key)!, key, value }),
    );
    if (!accepted.length) return;
    for (const { key } of accepted) this.waiting.delete(key);
    await this.publish(this.outstanding);
    for (const { waiting, value } of accepted) waiting.resolve(value);
  }

  /** Ends every outstanding question with `error` (the task was cancelled, failed or expired). */
  end(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }

  private async ask(key: string, question: InputRequest): Promise<unknown> {
    const missing = missingCapability(question, this.capabilities);
    if (missing) throw missing;
    if (this.signal.aborted) throw new McpAbortedError('Task ended');
    const unique = this.uniqueKey(key);
    const answered = new Promise<unknown>((resolve, reject) => this.waiting.set(unique, { question, resolve, reject }));
    await this.publish(this.outstanding);
    return answered;
  }

  private uniqueKey(key: string): string {
    let unique = key;
    for (let n = 2; this.used.has(unique); n++) unique = `${key}#${n}`;
    this.used.add(unique);
    return unique;
  }
}

/** An answer that fits its question: the question's key, the checked answer and the answer as sent. */
export interface CheckedResponse {
  key: string;
  value: unknown;
  response: unknown;
}

/**
 * The answers of `responses` whose key names an outstanding question (`questionOf`), each checked by core's answer
 * checks; other keys are left out (never asked, answered already, ended). An answer that does not fit its question
 * refuses them all with -32602.
 */
export function checkResponses(
  questionOf: (key: string) => InputRequest | undefined,
  responses: Record<string, unknown>,
  schemas: SchemaValidator,
): CheckedResponse[] {
  const accepted: CheckedResponse[] = [];
  for (const [key, response] of Object.entries(responses)) {
    const question = questionOf(key);
    if (!question) continue;
    const check = checkAnswer(question, response, schemas);
    if (!check.ok) throw invalidParams(`Invalid input response "${sanitizeText(key, 64)}": ${check.problem}`);
    accepted.push({ key, value: check.value, response });
  }
  return accepted;
}
