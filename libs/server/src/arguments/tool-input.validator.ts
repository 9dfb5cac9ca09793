import { Type } from '@nestjs/common';
import { JsonSchemaObject, SchemaValidator } from '@conduit-mcp/core';
import { dtoSupport } from './dto-support';
import { ToolInputCheck, ToolInputValidator } from './tool-input.interface';

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
