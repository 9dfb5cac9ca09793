import { Type } from '@nestjs/common';
import { JsonSchemaObject, invalidParams } from '@conduit-mcp/core';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import type { McpArgumentLimits } from '../interfaces/mcp-module-options.interface';
import { ArgumentBounds } from './argument-bounds';
import { dtoToJsonSchema } from './dto-schema.factory';
import type { ToolInputCheck, ToolInputValidator } from './tool-input.interface';

export { dtoToJsonSchema };

/**
 * Tool arguments checked with class-validator against a DTO class (its JSON Schema generated from it), once they are
 * within their bounds: class-transformer's work grows with the square of an object's keys.
 */
export class DtoInputValidator implements ToolInputValidator {
  readonly schema: JsonSchemaObject;
  private readonly bounds: ArgumentBounds;

  constructor(
    private readonly dto: Type<object>,
    limits?: McpArgumentLimits,
  ) {
    this.schema = dtoToJsonSchema(dto);
    this.bounds = ArgumentBounds.forSchema(this.schema, limits, true);
  }

  async check(args: Record<string, unknown>): Promise<ToolInputCheck> {
    const refusal = this.bounds.check(args);
    if (refusal) throw invalidParams(refusal);
    const value = plainToInstance(this.dto, args);
    const errors = await validate(value, { forbidUnknownValues: true });
    return errors.length ? { ok: false, problems: flatten(errors) } : { ok: true, value };
  }
}

function flatten(errors: ValidationError[], path = ''): string[] {
  return errors.flatMap((error) => {
    const at = path ? `${path}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(error.property) ? `${path ? `${path}.` : ''}${message}` : `${at}: ${message}`,
    );
    return [...own, ...flatten(error.children ?? [], at)];
  });
}
