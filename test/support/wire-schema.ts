import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The official schemas live in ../shared/spec beside the project; they are read, never copied. */
const SPEC_DIR = join(__dirname, '..', '..', '..', 'shared', 'spec');

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
  private readonly prefix: string;

  private constructor(readonly revision: string) {
    const file = join(SPEC_DIR, `schema-${revision === '2025-03-26' || revision === '2024-11-05' ? '2025-06-18' : revision}.json`);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const draft2020 = String(schema.$schema).includes('2020-12');
    this.ajv = draft2020 ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(schema, 'mcp');
    this.prefix = draft2020 ? 'mcp#/$defs/' : 'mcp#/definitions/';
  }

  static for(revision: string): WireSchema {
    let schema = WireSchema.cache.get(revision);
    if (!schema) WireSchema.cache.set(revision, (schema = new WireSchema(revision)));
    return schema;
  }

  /** Problems with one server message; `requestMethod` is the method of the client request a response answers. */
  check(message: Record<string, unknown>, requestMethod?: string): string[] {
    if ('method' in message && 'id' in message) return this.validate('ServerRequest', message);
    if ('method' in message) return this.validate('ServerNotification', message);
    if ('error' in message) return this.validate(this.has('JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError', message);
    const resultType = requestMethod ? RESULT_OF[requestMethod] : undefined;
    const envelope = this.validate('JSONRPCResponse', message);
    return resultType ? [...envelope, ...this.validate(resultType, message.result)] : envelope;
  }

  private has(name: string): boolean {
    return !!this.ajv.getSchema(this.prefix + name);
  }

  private validate(name: string, data: unknown): string[] {
    let validator = this.validators.get(name);
    if (!validator) {
      const compiled = this.ajv.getSchema(this.prefix + name);
      if (!compiled) throw new Error(`schema ${this.revision} has no definition ${name}`);
      validator = (value) =>
        compiled(value) ? [] : (compiled.errors ?? []).map((e) => `${name}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
      this.validators.set(name, validator);
    }
    return validator(data);
  }
}
