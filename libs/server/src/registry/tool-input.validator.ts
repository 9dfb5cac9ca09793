import { Type } from '@nestjs/common';
import { JsonSchemaObject, SchemaValidator } from '@conduit-mcp/core';
import { dtoSupport } from './dto-support';

/** The outcome of checking tool arguments: the value to hand to the handler, or what is wrong with them. */
export type ToolInputCheck = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** Validates tool arguments against a DTO class (class-validator) or a JSON Schema (ajv). */
export interface ToolInputValidator {
  readonly schema: JsonSchemaObject;
  /** Synchronous for a JSON Schema, a promise for a DTO class (class-validator validates asynchronously). */
  check(args: Record<string, unknown>): ToolInputCheck | Promise<ToolInputCheck>;
}

const NO_ARGUMENTS: JsonSchemaObject = { type: 'object', properties: {} };

export function isDtoClass(value: unknown): value is Type<object> {
  return typeof value === 'function';
}

export function createToolInputValidator(
  input: Type<object> | JsonSchemaObject | undefined,
  schemas: SchemaValidator,
): ToolInputValidator {
  if (isDtoClass(input)) return new (dtoSupport().DtoInputValidator)(input);
  return new JsonSchemaInputValidator(input ?? NO_ARGUMENTS, schemas);
}

class JsonSchemaInputValidator implements ToolInputValidator {
  constructor(
    readonly schema: JsonSchemaObject,
    private readonly schemas: SchemaValidator,
  ) {
    schemas.assertValid(schema);
  }

  check(args: Record<string, unknown>): ToolInputCheck {
    const result = this.schemas.validate(this.schema, args);
    return result.valid ? { ok: true, value: args } : { ok: false, problems: result.errors };
  }
}
