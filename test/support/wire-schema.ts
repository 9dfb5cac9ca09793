import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The official schemas of each revision, as published (see spec/README.md). */
const SPEC_DIR = join(__dirname, 'spec');

/** Which result type answers which client request. */
const RESULT_OF: Record<string, string> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
};

/** Revision 2025-11-25 (experimental tasks): which result types answer which task request. */
const LEGACY_TASK_RESULT_OF: Record<string, string[]> = {
  'tasks/get': ['GetTaskResult'],
  // The payload is what the task's request would have returned, and a server can augment only tools/call.
  'tasks/result': ['GetTaskPayloadResult', 'CallToolResult'],
  'tasks/list': ['ListTasksResult'],
  'tasks/cancel': ['CancelTaskResult'],
};

/** Revision 2026-07-28: the methods it added, and those it removed (answered with an error, so never with a result). */
const MODERN_REVISION = '2026-07-28';
const MODERN_RESULT_OF: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(RESULT_OF).filter(
      ([method]) =>
        !['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'].includes(method),
    ),
  ),
  'server/discover': 'DiscoverResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};
/** The requests a 2026-07-28 server may answer with `resultType: "input_required"` (MRTR). */
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** Error codes 2026-07-28 defines in its reserved range, with the schema of each error response. */
const MODERN_ERRORS: Record<number, string> = {
  [-32020]: 'HeaderMismatchError',
  [-32021]: 'MissingRequiredClientCapabilityError',
  [-32022]: 'UnsupportedProtocolVersionError',
};

/**
 * 2026-07-28 has no task types: the tasks extension (`io.modelcontextprotocol/tasks`) defines them in its own schema,
 * checked beside the revision's (see spec/README.md).
 */
const TASKS_EXTENSION_FILE = 'ext-tasks-schema-draft.json';
/** Which result type of the extension answers which of its requests. */
const TASKS_EXTENSION_RESULT_OF: Record<string, string> = {
  'tasks/get': 'GetTaskResult',
  'tasks/update': 'UpdateTaskResult',
  'tasks/cancel': 'CancelTaskResult',
};
/** The requests the extension lets a server answer with `resultType: "task"`. */
const TASK_CREATING_METHODS = new Set(['tools/call']);

/** Where a definition lives: the revision's schema, or the tasks extension's. */
type SchemaSource = 'mcp' | 'ext-tasks';

type Validator = (data: unknown) => string[];

/**
 * Validates what a server puts on the wire against the official JSON Schema of a revision: requests as
 * `ServerRequest`, notifications as `ServerNotification`, results as the result type of the request they answer,
 * errors as the JSON-RPC error envelope.
 */
export class WireSchema {
  private static readonly cache = new Map<string, WireSchema>();
  private readonly validators = new Map<string, Validator>();
  private readonly ajv: Ajv;
  private readonly prefixes: Record<SchemaSource, string>;

  private constructor(readonly revision: string) {
    const schema = readSchema(
      `schema-${revision === '2025-03-26' || revision === '2024-11-05' ? '2025-06-18' : revision}.json`,
    );
    const draft2020 = String(schema.$schema).includes('2020-12');
    this.ajv = draft2020
      ? new Ajv2020({ strict: false, allErrors: true })
      : new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(schema, 'mcp');
    this.prefixes = { mcp: draft2020 ? 'mcp#/$defs/' : 'mcp#/definitions/', 'ext-tasks': 'ext-tasks#/$defs/' };
    // The extension's schema is draft 2020-12 like 2026-07-28's, so both share one Ajv.
    if (revision === MODERN_REVISION) this.ajv.addSchema(readSchema(TASKS_EXTENSION_FILE), 'ext-tasks');
  }

  static for(revision: string): WireSchema {
    let schema = WireSchema.cache.get(revision);
    if (!schema) WireSchema.cache.set(revision, (schema = new WireSchema(revision)));
    return schema;
  }

  /** Problems with one server message; `requestMethod` is the method of the client request a response answers. */
  check(message: Record<string, unknown>, requestMethod?: string): string[] {
    if (this.revision === MODERN_REVISION) return this.checkModern(message, requestMethod);
    if ('method' in message && 'id' in message) return this.validate('ServerRequest', message);
    // Its own definition rather than the ServerNotification union, so a malformed status names its fields.
    if (message.method === 'notifications/tasks/status' && this.has('TaskStatusNotification'))
      return this.validate('TaskStatusNotification', message);
    if ('method' in message) return this.validate('ServerNotification', message);
    if ('error' in message)
      return this.validate(this.has('JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError', message);
    const envelope = this.validate('JSONRPCResponse', message);
    const resultTypes = requestMethod ? this.legacyResultTypes(requestMethod, message.result) : [];
    return [...envelope, ...resultTypes.flatMap((resultType) => this.validate(resultType, message.result))];
  }

  /**
   * Revisions before 2026-07-28: the result types of the request. Tasks exist from 2025-11-25 on (the schemas that
   * define them); there a `tools/call` with a `task` member in its result is a task-augmented call's `CreateTaskResult`.
   */
  private legacyResultTypes(requestMethod: string, result: unknown): string[] {
    const plain = RESULT_OF[requestMethod] ? [RESULT_OF[requestMethod]] : [];
    if (!this.has('CreateTaskResult')) return plain;
    if (requestMethod === 'tools/call' && !!result && typeof result === 'object' && 'task' in result)
      return ['CreateTaskResult'];
    return LEGACY_TASK_RESULT_OF[requestMethod] ?? plain;
  }

  /**
   * 2026-07-28: no server-to-client requests at all (input travels in `input_required` results); every result has a
   * `resultType`, `complete` or (for the MRTR methods only) `input_required`; interim results carry no cache hints;
   * errors in the reserved range -32020..-32099 are only the defined ones, with their defined shapes; -32002 and
   * -32042 are retired. The tasks extension adds `resultType: "task"` (a `CreateTaskResult`, for `tools/call` only),
   * the results of `tasks/get|update|cancel` and `notifications/tasks`, all checked against its own schema.
   */
  private checkModern(message: Record<string, unknown>, requestMethod?: string): string[] {
    if ('method' in message && 'id' in message) {
      return [
        `server sent a JSON-RPC request (${String(message.method)}); revision ${MODERN_REVISION} has none (MRTR carries input requests in results)`,
      ];
    }
    if (message.method === 'notifications/tasks') return this.validate('TaskStatusNotification', message, 'ext-tasks');
    if ('method' in message) return this.validate('ServerNotification', message);
    if ('error' in message) {
      const envelope = this.validate('JSONRPCErrorResponse', message);
      const code = (message.error as { code?: unknown } | undefined)?.code;
      if (typeof code !== 'number') return envelope;
      if (MODERN_ERRORS[code]) return [...envelope, ...this.validate(MODERN_ERRORS[code], message)];
      if (code <= -32020 && code >= -32099)
        return [
          ...envelope,
          `error code ${code} is in the range reserved for the specification but not defined by ${MODERN_REVISION}`,
        ];
      if (code === -32002 || code === -32042)
        return [...envelope, `error code ${code} must not be emitted in ${MODERN_REVISION}`];
      return envelope;
    }
    const envelope = this.validate('JSONRPCResponse', message);
    const result = message.result as Record<string, unknown> | undefined;
    if (!result || typeof result !== 'object') return envelope;
    if (result.resultType === 'input_required') {
      const problems = [...envelope, ...this.validate('InputRequiredResult', result)];
      if (requestMethod && !MRTR_METHODS.has(requestMethod))
        problems.push(`input_required answers ${requestMethod}, which does not support it`);
      if (result.inputRequests === undefined && result.requestState === undefined)
        problems.push('input_required has neither inputRequests nor requestState');
      if ('ttlMs' in result || 'cacheScope' in result)
        problems.push('input_required carries cache hints (ttlMs/cacheScope)');
      return problems;
    }
    if (result.resultType === 'task') {
      const problems = [...envelope, ...this.validate('CreateTaskResult', result, 'ext-tasks')];
      if (requestMethod && !TASK_CREATING_METHODS.has(requestMethod))
        problems.push(
          `resultType "task" answers ${requestMethod}, which the tasks extension does not let create a task`,
        );
      return problems;
    }
    if (result.resultType !== 'complete')
      return [
        ...envelope,
        `resultType ${JSON.stringify(result.resultType)} is neither "complete", "input_required" nor "task"`,
      ];
    const taskResultType = requestMethod ? TASKS_EXTENSION_RESULT_OF[requestMethod] : undefined;
    if (taskResultType) return [...envelope, ...this.validate(taskResultType, result, 'ext-tasks')];
    const resultType = requestMethod ? MODERN_RESULT_OF[requestMethod] : undefined;
    return resultType ? [...envelope, ...this.validate(resultType, result)] : envelope;
  }

  private has(name: string): boolean {
    return !!this.ajv.getSchema(this.prefixes.mcp + name);
  }

  private validate(name: string, data: unknown, source: SchemaSource = 'mcp'): string[] {
    const ref = this.prefixes[source] + name;
    let validator = this.validators.get(ref);
    if (!validator) {
      const compiled = this.ajv.getSchema(ref);
      if (!compiled) throw new Error(`schema ${source === 'mcp' ? this.revision : source} has no definition ${name}`);
      // Definitions of the extension are named as such, since some names (Result, Task…) exist in both schemas.
      const label = source === 'mcp' ? name : `${source}:${name}`;
      validator = (value) =>
        compiled(value)
          ? []
          : (compiled.errors ?? []).map((e) => `${label}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
      this.validators.set(ref, validator);
    }
    return validator(data);
  }
}

/** One schema file of spec/; a missing one fails the test that needs it at once, saying which and where it comes from. */
function readSchema(name: string): Record<string, unknown> {
  const file = join(SPEC_DIR, name);
  if (!existsSync(file)) {
    throw new Error(`Missing the schema ${file}: see test/support/spec/README.md for where to get it`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}
