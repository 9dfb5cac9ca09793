import { Type } from '@nestjs/common';
import { JsonSchemaObject, SchemaValidator, invalidParams } from '@conduit-mcp/core';
import type { McpArgumentLimits } from '../interfaces/mcp-module-options.interface';
import { ArgumentBounds } from './argument-bounds';
import { dtoSupport } from './dto-support';
import { ToolInputCheck, ToolInputValidator } from './tool-input.interface';

const NO_ARGUMENTS: JsonSchemaObject = { type: 'object', properties: {} };

export function isDtoClass(value: unknown): value is Type<object> {
  return typeof value === 'function';
}

/**
 * The validator of a tool's arguments. Arguments past `limits` (see {@link ArgumentBounds}) are refused with -32602
 * before any validation; arguments that fail validation come back as problems (a tool error, which the model reads).
 */
export function createToolInputValidator(
  input: Type<object> | JsonSchemaObject | undefined,
  schemas: SchemaValidator,
  limits?: McpArgumentLimits,
): ToolInputValidator {
  if (isDtoClass(input)) return new (dtoSupport().DtoInputValidator)(input, limits);
  return new JsonSchemaInputValidator(input ?? NO_ARGUMENTS, schemas, limits);
}

class JsonSchemaInputValidator implements ToolInputValidator {
  // Derived from the schema on the first call (the limits were checked at start-up, with the module's options).
  private bounds: ArgumentBounds | undefined;

  constructor(
    readonly schema: JsonSchemaObject,
    private readonly schemas: SchemaValidator,
    private readonly limits: McpArgumentLimits | undefined,
  ) {
    // Checked now, compiled on the first call (see SchemaValidator.assertWellFormed).
    schemas.assertWellFormed(schema);
  }

  check(args: Record<string, unknown>): ToolInputCheck {
    this.bounds ??= ArgumentBounds.forSchema(this.schema, this.limits, false);
    const refusal = this.bounds.check(args);
    if (refusal) throw invalidParams(refusal);
    const result = this.schemas.validate(this.schema, args);
    return result.valid ? { ok: true, value: args } : { ok: false, problems: result.errors };
  }
}
