import {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  META_RELATED_TASK,
  McpError,
  ErrorCode,
  AnswerCheck,
  SchemaValidator,
  checkCreateMessageResult,
  checkElicitResult,
  checkElicitationSchema,
  checkListRootsResult,
  sanitizeText,
} from '@conduit-mcp/core';
import { McpSession } from '../../session/mcp-session';
import { MessageSink } from '../../session/message-sink.interface';
import { RequestCancellation } from '../../session/request-cancellation';
import { McpInput } from '../../context/mcp-input.interface';

/** How long a question waits for its answer, and how many (and how many bytes of them) a session may have waiting. */
export interface LegacyInputLimits {
  timeoutMs: number;
  maxPending: number;
  maxPendingBytes: number;
}

/** What changes for the questions of a call running as a task (2025-11-25 tasks). */
export interface LegacyTaskQuestions {
  /** Sent in each question's `_meta` as the related task. */
  taskId: string;
  /** Where a question goes: waits, within `timeoutMs`, until somewhere is open (the task has no request of its own). */
  sink(method: string, signal: AbortSignal, timeoutMs: number): Promise<MessageSink>;
  /** A question starts (+1) or ends (-1): the task is `input_required` while one waits. */
  asking(delta: 1 | -1): void;
}

/**
 * Legacy era: each question is a server-to-client request on the request's stream, awaited for its answer. Inside a
 * task, each carries the related task and goes where the task's channel says.
 */
export class LegacyInput implements McpInput {
  constructor(
    private readonly session: McpSession,
    /** Where the request's messages go now (its invocation's sink, which can be re-pointed). */
    private readonly sinkOf: () => MessageSink | undefined,
    /** What aborts its questions: the request's cancellation, or a task's. */
    private readonly cancellation: Pick<RequestCancellation, 'signal'>,
    private readonly limits: LegacyInputLimits,
    private readonly schemas: SchemaValidator,
    private readonly task?: LegacyTaskQuestions,
  ) {}

  async elicit(_key: string, params: ElicitRequestParams): Promise<ElicitResult> {
    const mode = params.mode ?? 'form';
    if (params.mode !== 'url') {
      // A schema outside the elicitation subset is the server's bug: clients would refuse it, so fail here, loudly.
      const problems = checkElicitationSchema(params.requestedSchema);
      if (problems.length) throw new Error(`Invalid elicitation schema: ${problems.join('; ')}`);
    }
    this.require(mode === 'url' ? 'elicitation.url' : 'elicitation', 'elicitation/create', (c) =>
      mode === 'url' ? !!c.elicitation?.url : !!c.elicitation,
    );
    const answer = await this.ask('elicitation/create', params as Record<string, unknown>);
    return answered('elicitation/create', checkElicitResult(params, answer, this.schemas));
  }

  async sample(_key: string, params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    this.require('sampling', 'sampling/createMessage', (c) => !!c.sampling);
    const answer = await this.ask('sampling/createMessage', params as unknown as Record<string, unknown>);
    return answered('sampling/createMessage', checkCreateMessageResult(answer));
  }

  async roots(_key: string): Promise<ListRootsResult> {
    this.require('roots', 'roots/list', (c) => !!c.roots);
    return answered('roots/list', checkListRootsResult(await this.ask('roots/list', {})));
  }

  private require(name: string, method: string, has: (capabilities: ClientCapabilities) => boolean): void {
    // The client's answer arrives in a later HTTP request, which only a session can route back here.
    if (!this.session.persistent) {
      throw new McpError(ErrorCode.ServerError, `${method} needs a session; this server runs stateless HTTP`);
    }
    if (!has(this.session.clientCapabilities)) {
      throw new McpError(ErrorCode.InvalidRequest, `The client does not support ${name}`);
    }
  }

  private ask(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.task) return this.askInTask(this.task, method, params);
    const sink = this.sinkOf();
    if (!sink || sink.closed) {
      return Promise.reject(new McpError(ErrorCode.ServerError, `No open stream to send ${method} on`));
    }
    return this.send(method, params, sink);
  }

  private async askInTask(
    task: LegacyTaskQuestions,
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const meta = {
      ...(params._meta as Record<string, unknown> | undefined),
      [META_RELATED_TASK]: { taskId: task.taskId },
    };
    task.asking(1);
    try {
      const sink = await task.sink(method, this.cancellation.signal, this.limits.timeoutMs);
      return await this.send(method, { ...params, _meta: meta }, sink);
    } finally {
      task.asking(-1);
    }
  }

  private send(method: string, params: Record<string, unknown>, sink: MessageSink): Promise<Record<string, unknown>> {
    const { timeoutMs, maxPending, maxPendingBytes } = this.limits;
    return this.session.request(method, params, sink, {
      timeoutMs,
      signal: this.cancellation.signal,
      maxPending,
      maxPendingBytes,
    });
  }
}

/**
 * The client's answer, checked as the modern era checks its input responses (one check per kind, in core): an answer
 * that breaks the question (an unknown action, a form answer outside the requested schema) never reaches the handler
 * as valid.
 */
function answered<T>(method: string, check: AnswerCheck<T>): T {
  if (check.ok) return check.value;
  throw new McpError(
    ErrorCode.InvalidParams,
    `Invalid answer from the client to ${method}: ${sanitizeText(check.problem, 512)}`,
  );
}
