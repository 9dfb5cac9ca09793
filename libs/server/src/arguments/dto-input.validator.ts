import { Type } from '@nestjs/common';
import { JsonSchemaObject } from '@conduit-mcp/core';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { dtoToJsonSchema } from './dto-schema.factory';
import type { ToolInputCheck, ToolInputValidator } from './tool-input.interface';

export { dtoToJsonSchema };

/** Tool arguments checked with class-validator against a DTO class (its JSON Schema generated from it). */
export class DtoInputValidator implements ToolInputValidator {
  readonly schema: JsonSchemaObject;

  constructor(private readonly dto: Type<object>) {
    this.schema = dtoToJsonSchema(dto);
  }

  async check(args: Record<string, unknown>): Promise<ToolInputCheck> {
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
