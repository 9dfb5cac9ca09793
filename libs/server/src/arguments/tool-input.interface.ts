import { JsonSchemaObject } from '@conduit-mcp/core';

/** The outcome of checking tool arguments: the value to hand to the handler, or what is wrong with them. */
export type ToolInputCheck = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** Validates tool arguments against a DTO class (class-validator) or a JSON Schema (ajv). */
export interface ToolInputValidator {
  readonly schema: JsonSchemaObject;
  /**
   * Synchronous for a JSON Schema, a promise for a DTO class (class-validator validates asynchronously). Arguments past
   * their bounds are refused before validation: it throws (or rejects with) an `McpError` -32602.
   */
  check(args: Record<string, unknown>): ToolInputCheck | Promise<ToolInputCheck>;
}
