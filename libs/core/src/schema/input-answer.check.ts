import { isJsonObject } from '../json/json-object';
import type {
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
} from '../protocol/protocol.types';
import { sanitizeText } from '../text/text.sanitizer';
import type { SchemaValidator } from './schema.validator';

/** Outcome of checking an answer to a question put to a client: the answer to go on with, or what is wrong with it. */
export type AnswerCheck<T> = { ok: true; value: T } | { ok: false; problem: string };

const ACTIONS: readonly string[] = ['accept', 'decline', 'cancel'];
const ROLES: readonly string[] = ['user', 'assistant'];

/**
 * Checks an answer to `elicitation/create` (from a client's handler, a legacy response or a modern `inputResponses`):
 * a known action; a URL-mode `accept` carries no content; a form `accept` carries only fields the requested schema
 * declares, each a string, number, boolean or string array, and fits that schema. Content on a `decline` or `cancel`
 * is dropped rather than refused. The answer returned holds only `action`, `content` and `_meta`.
 */
export function checkElicitResult(
  request: ElicitRequestParams,
  result: unknown,
  schemas: SchemaValidator,
): AnswerCheck<ElicitResult> {
  if (!isJsonObject(result)) return wrong('elicitation result must be an object');
  const { action, content, _meta } = result;
  if (typeof action !== 'string' || !ACTIONS.includes(action)) {
    return wrong('elicitation result action must be accept, decline or cancel');
  }
  const answer = { action } as ElicitResult;
  if (isJsonObject(_meta)) answer._meta = _meta;
  if (action !== 'accept') return fine(answer);
  if (request.mode === 'url') {
    return content === undefined ? fine(answer) : wrong('a URL-mode accept carries no content');
  }
  if (content !== undefined && !isJsonObject(content)) return wrong('elicitation content must be an object');
  const problem = misfit(request.requestedSchema, content ?? {}, schemas);
  if (problem) return wrong(`elicitation ${problem}`);
  if (content !== undefined) answer.content = content as ElicitResult['content'];
  return fine(answer);
}

/** Checks an answer to `sampling/createMessage`: a role, content (a block or an array of them) and a model name. */
export function checkCreateMessageResult(result: unknown): AnswerCheck<CreateMessageResult> {
  if (!isJsonObject(result)) return wrong('sampling result must be an object');
  if (!ROLES.includes(result.role as string)) return wrong('sampling result role must be user or assistant');
  if (typeof result.content !== 'object' || result.content === null) {
    return wrong('sampling result content must be a content block or an array of them');
  }
  if (typeof result.model !== 'string') return wrong('sampling result model must be a string');
  return fine(result as unknown as CreateMessageResult);
}

/** Checks an answer to `roots/list`: an array of roots, each with a string `uri`. */
export function checkListRootsResult(result: unknown): AnswerCheck<ListRootsResult> {
  const ok =
    isJsonObject(result) &&
    Array.isArray(result.roots) &&
    result.roots.every((root) => isJsonObject(root) && typeof root.uri === 'string');
  return ok
    ? fine(result as unknown as ListRootsResult)
    : wrong('roots result must list roots, each with a string uri');
}

/** Why `content` does not fit the form `schema`, or undefined when it does. */
function misfit(schema: unknown, content: Record<string, unknown>, schemas: SchemaValidator): string | undefined {
  const properties = isJsonObject(schema) ? schema.properties : undefined;
  for (const [name, value] of Object.entries(content)) {
    const field = sanitizeText(name, 64);
    if (!isJsonObject(properties) || !Object.hasOwn(properties, name)) return `content has undeclared field "${field}"`;
    if (!isFieldValue(value)) return `content field "${field}" must be a string, number, boolean or string array`;
  }
  try {
    const verdict = schemas.validate(schema as object, content);
    return verdict.valid ? undefined : `content does not fit the schema: ${verdict.errors.join('; ')}`;
  } catch {
    return 'requestedSchema cannot be compiled';
  }
}

function isFieldValue(value: unknown): boolean {
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function fine<T>(value: T): AnswerCheck<T> {
  return { ok: true, value };
}

function wrong(problem: string): AnswerCheck<never> {
  return { ok: false, problem };
}
