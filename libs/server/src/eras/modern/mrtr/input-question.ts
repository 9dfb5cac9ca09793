import type { AnswerCheck } from '@conduit-mcp/core';
import {
  ClientCapabilities,
  ElicitRequestParams,
  ErrorCode,
  McpError,
  SchemaValidator,
  checkCreateMessageResult,
  checkElicitResult,
  checkElicitationSchema,
  checkListRootsResult,
} from '@conduit-mcp/core';

/** One question to the client in the modern era (an `input_required` result, a task's `inputRequests`), by key. */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: Record<string, unknown>;
}

/**
 * The question a handler's `elicit` asks, checked: a form's requested schema must be one the specification allows
 * (an Error for the handler's author otherwise), and the mode is always named.
 */
export function elicitationQuestion(params: ElicitRequestParams): InputRequest {
  const url = params.mode === 'url';
  if (!url) {
    const problems = checkElicitationSchema(params.requestedSchema);
    if (problems.length) throw new Error(`Invalid elicitation schema: ${problems.join('; ')}`);
  }
  return { method: 'elicitation/create', params: { ...params, mode: url ? 'url' : 'form' } };
}

/**
 * The -32021 refusal of a question the request's declared capabilities do not cover, or undefined when they do (a
 * form elicitation needs `elicitation` with `form`, or with neither mode named; a URL one `elicitation.url`).
 */
export function missingCapability(question: InputRequest, capabilities: ClientCapabilities): McpError | undefined {
  let required: ClientCapabilities | undefined;
  if (question.method === 'elicitation/create') {
    const url = question.params.mode === 'url';
    const elicitation = capabilities.elicitation as { form?: object; url?: object } | undefined;
    const supported = url ? !!elicitation?.url : !!elicitation && (!!elicitation.form || !elicitation.url);
    if (!supported) required = { elicitation: url ? { url: {} } : { form: {} } };
  } else if (question.method === 'sampling/createMessage') {
    if (!capabilities.sampling) required = { sampling: {} };
  } else if (!capabilities.roots) {
    required = { roots: {} };
  }
  return required
    ? new McpError(ErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
        requiredCapabilities: required,
      })
    : undefined;
}

/** Checks the client's answer to `question` (core's one set of answer checks). */
export function checkAnswer(question: InputRequest, answer: unknown, schemas: SchemaValidator): AnswerCheck<unknown> {
  if (question.method === 'elicitation/create')
    return checkElicitResult(question.params as unknown as ElicitRequestParams, answer, schemas);
  if (question.method === 'sampling/createMessage') return checkCreateMessageResult(answer);
  return checkListRootsResult(answer);
}
